// The door scanner's service worker (served at /console/scanner-sw.js, scope /console/). It keeps
// the scanner page and its files so the scanner opens with no network; every other console request
// goes to the network untouched.
const CACHE = 'admit-scanner-__VERSION__';
const SCANNER = /^\/console\/a\/[^/]+\/door\/[^/]+\/\d+$/;
const MANIFEST = /^\/console\/a\/[^/]+\/door\/[^/]+\/\d+\/manifest\.webmanifest$/;
const ASSET = /^\/console\/assets\//;
const NETWORK_WAIT_MS = 4000;

self.addEventListener('install', () => self.skipWaiting());

self.addEventListener('activate', (event) => {
  event.waitUntil(
    (async () => {
      for (const name of await caches.keys()) if (name.startsWith('admit-scanner-') && name !== CACHE) await caches.delete(name);
      await self.clients.claim();
    })(),
  );
});

/** The network's answer (kept for next time), or what was kept when the network fails or stalls. */
async function networkFirst(request) {
  const cache = await caches.open(CACHE);
  try {
    const response = await Promise.race([
      fetch(request),
      new Promise((_, reject) => setTimeout(() => reject(new Error('slow network')), NETWORK_WAIT_MS)),
    ]);
    // a redirect (signed out) or an error page is not kept in place of the scanner
    if (response.ok && !response.redirected) await cache.put(request.url, response.clone());
    return response;
  } catch (err) {
    const kept = await cache.match(request.url);
    if (kept) return kept;
    throw err;
  }
}

/** Files whose URL names their content: the kept copy, else the network (and keep it). */
async function cacheFirst(request) {
  const cache = await caches.open(CACHE);
  const kept = await cache.match(request.url);
  if (kept) return kept;
  const response = await fetch(request);
  if (response.ok) await cache.put(request.url, response.clone());
  return response;
}

// The scanner page asks, once it is open, to keep itself and its files: the visit that installed
// this worker was not served through it, and the door may lose its network before the next one.
self.addEventListener('message', (event) => {
  const urls = event.data && event.data.type === 'keep' && Array.isArray(event.data.urls) ? event.data.urls : [];
  event.waitUntil(
    (async () => {
      const cache = await caches.open(CACHE);
      for (const raw of urls.slice(0, 10)) {
        const url = new URL(String(raw), self.location.origin);
        if (url.origin !== self.location.origin) continue;
        if (!(SCANNER.test(url.pathname) || MANIFEST.test(url.pathname) || ASSET.test(url.pathname))) continue;
        if (ASSET.test(url.pathname) && (await cache.match(url.href))) continue;
        try {
          const response = await fetch(url.href, { credentials: 'same-origin' });
          if (response.ok && !response.redirected) await cache.put(url.href, response);
        } catch {
          // offline already: what was kept stays
        }
      }
      if (event.source) event.source.postMessage({ type: 'kept' });
    })(),
  );
});

self.addEventListener('fetch', (event) => {
  const request = event.request;
  if (request.method !== 'GET') return;
  const url = new URL(request.url);
  if (url.origin !== self.location.origin) return;
  if (SCANNER.test(url.pathname) && !url.search) event.respondWith(networkFirst(request));
  else if (MANIFEST.test(url.pathname)) event.respondWith(networkFirst(request));
  else if (ASSET.test(url.pathname)) event.respondWith(cacheFirst(request));
});
