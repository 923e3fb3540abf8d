// The door scanner (contract section 9). Keeps the check-in list and the scans waiting to upload in
// IndexedDB, decides every scan on the device (so a result shows at once, network or not) and
// exchanges with the server every few seconds when it can: first what changed since its cursor,
// then its queued scans. Plain browser JavaScript, no build step.
(() => {
  'use strict';
  const cfg = JSON.parse(document.getElementById('scanner-config').textContent);
  const $ = (id) => document.getElementById(id);

  // What the scanner says, in English; the page's #scanner-words gives them in the person's
  // language (console-scanner.*.ts), and a word it lacks (an older page kept offline) stays English.
  const WORDS = {
    online: 'Online',
    synced: ' · synced {time}',
    offline: 'Offline',
    lastSync: ' · last sync {time}',
    signedOut: 'Signed out',
    connecting: 'Connecting…',
    signedOutNotice: 'You were signed out. Scanning goes on; {count} scans wait on this device until you sign in again.',
    signIn: 'Sign in',
    noConnection: 'No connection: scanning goes on with the list on this device; scans upload when the connection returns.',
    ready: 'Ready: {count} valid tickets on this device.',
    noScans: 'No scans on this device yet.',
    admitted: 'Admitted {label}',
    refusedLine: 'Refused {label}',
    several: 'Several tickets',
    orderRef: 'Order {ref}',
    typeOne: 'Type one ticket: {refs}',
    severalShort: 'several tickets',
    orderCode: 'Order code',
    orderCodeDetail: "This code is for a whole order: scan each ticket's own code, or type its reference.",
    anOrderCode: 'an order code',
    unknownCode: 'unknown code',
    unknown: 'Unknown ticket',
    notOnList: 'Not a ticket on this list.',
    notDownloaded: 'The list is not on this device yet: connect once to download it.',
    unknownShort: 'unknown',
    notValid: 'Not valid: the ticket is void or its order is not paid.',
    already: 'Already checked in at {time}.',
    valid: 'Valid',
    refused: 'Refused',
    notAtServer: 'not on the list at the server',
    conflictAdmitted: 'conflict: already admitted at {time} on another device',
    conflictInvalid: 'conflict: no longer valid at the server',
    uploaded: 'uploaded',
    serverAnswered: 'The server answered {error}; trying again in a few seconds.',
    downloading: 'Downloading the ticket list… {count}',
    noCamera: 'This browser gives no camera to this page (it needs HTTPS). Type references instead.',
    cameraUnavailable: 'The camera is not available ({error}). Type references instead.',
    notRecorded: 'Could not record the scan: {error}',
    needsHttps: 'This page needs HTTPS to keep the list on the device and use the camera.',
    couldNotStart: 'The scanner could not start: {error}',
  };
  const given = (() => {
    try {
      return JSON.parse(document.getElementById('scanner-words').textContent) || {};
    } catch {
      return {};
    }
  })();
  /** A word, with its `{name}`s filled in from `values`. */
  const say = (key, values) =>
    String(typeof given[key] === 'string' ? given[key] : WORDS[key]).replace(/\{(\w+)\}/g, (all, name) =>
      values && name in values ? String(values[name]) : all,
    );

  const SYNC_EVERY_MS = 5000;
  const PAGE = 5000;
  const UPLOAD_MAX = 500;
  const RECENT_MAX = 30;
  const SAME_CODE_MS = 1500;

  const byId = new Map();
  const byQr = new Map();
  const byRef = new Map();
  let db = null;
  let cursor = null;
  let device = null;
  let csrf = cfg.csrf;
  let lastSync = null;
  let pending = 0;
  let recent = [];
  let netState = 'unknown';
  let syncing = false;
  let downloaded = false;
  /** server time minus device time (ms), from the last sync: scans are stamped on the server's clock */
  let skew = 0;
  const now = () => new Date(Date.now() + skew);

  const locale = cfg.locale || 'en-GB';
  const clock = new Intl.DateTimeFormat(locale, { timeZone: cfg.timezone, hour: '2-digit', minute: '2-digit' });
  const clockSec = new Intl.DateTimeFormat(locale, {
    timeZone: cfg.timezone,
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
  });
  const count = (n) => n.toLocaleString(locale);

  // ---------------------------------------------------------------- IndexedDB
  function openDb() {
    return new Promise((resolve, reject) => {
      const r = indexedDB.open('admit-scanner:' + cfg.key, 1);
      r.onupgradeneeded = () => {
        r.result.createObjectStore('tickets', { keyPath: 'id' });
        r.result.createObjectStore('queue', { keyPath: 'client_id' });
        r.result.createObjectStore('meta');
      };
      r.onsuccess = () => resolve(r.result);
      r.onerror = () => reject(r.error);
    });
  }

  /** Runs `fn` with the stores in one transaction; resolves with its value once it committed. */
  function inTx(stores, mode, fn) {
    return new Promise((resolve, reject) => {
      const t = db.transaction(stores, mode);
      let out;
      Promise.resolve(fn(t)).then((v) => (out = v), reject);
      t.oncomplete = () => resolve(out);
      t.onerror = () => reject(t.error);
      t.onabort = () => reject(t.error);
    });
  }
  const ask = (r) =>
    new Promise((resolve, reject) => {
      r.onsuccess = () => resolve(r.result);
      r.onerror = () => reject(r.error);
    });

  // ---------------------------------------------------------------- the list in memory
  function index(t) {
    const old = byId.get(t.id);
    if (old) {
      if (old.qr_sha256 !== t.qr_sha256) byQr.delete(old.qr_sha256);
      if (old.reference !== t.reference) byRef.delete(old.reference.toUpperCase());
    }
    byId.set(t.id, t);
    byQr.set(t.qr_sha256, t);
    byRef.set(t.reference.toUpperCase(), t);
  }
  const admitted = (t) => t.checked_in_at || t.local_at;

  function totals() {
    let valid = 0;
    let checked = 0;
    for (const t of byId.values()) {
      if (t.status !== 'valid') continue;
      valid += 1;
      if (admitted(t)) checked += 1;
    }
    return { valid, checked };
  }

  // ---------------------------------------------------------------- what the person sees
  function render() {
    if (downloaded) {
      const { valid, checked } = totals();
      $('checked').textContent = count(checked);
      $('total').textContent = count(valid);
    }
    $('pending').textContent = count(pending);
    const net = $('net');
    net.dataset.state = netState;
    net.textContent =
      netState === 'online'
        ? say('online') + (lastSync ? say('synced', { time: clockSec.format(lastSync) }) : '')
        : netState === 'offline'
          ? say('offline') + (lastSync ? say('lastSync', { time: clock.format(lastSync) }) : '')
          : netState === 'signed-out'
            ? say('signedOut')
            : say('connecting');
  }

  function notice(text, kind, link) {
    const el = $('notice');
    el.dataset.kind = kind || '';
    el.textContent = text;
    if (link) {
      el.append(' ');
      const a = document.createElement('a');
      a.href = link.href;
      a.textContent = link.text;
      el.append(a);
    }
  }

  function readyNotice() {
    if (!downloaded) return;
    const { valid } = totals();
    if (netState === 'signed-out')
      notice(say('signedOutNotice', { count: count(pending) }), 'bad', { href: cfg.signIn, text: say('signIn') });
    else if (netState === 'offline') notice(say('noConnection'));
    else notice(say('ready', { count: count(valid) }));
  }

  let hideTimer = null;
  /** when the current scan began (a typed reference sent, a camera frame taken): measured to its result */
  let scanStarted = 0;
  function showResult(ok, verdict, who, detail) {
    const el = $('result');
    if (scanStarted) performance.measure('admit-scan-result', { start: scanStarted, end: performance.now() });
    $('r-mark').textContent = ok ? '✓' : '✕';
    $('r-verdict').textContent = verdict;
    $('r-who').textContent = who || '';
    $('r-detail').textContent = detail || '';
    el.dataset.ok = String(ok);
    feedback(ok);
    clearTimeout(hideTimer);
    hideTimer = setTimeout(hideResult, ok ? 1500 : 3500);
  }
  function hideResult() {
    clearTimeout(hideTimer);
    $('result').dataset.ok = '';
  }
  const resultShown = () => $('result').dataset.ok !== '';

  let audio = null;
  function unlockAudio() {
    const Ctx = window.AudioContext || window.webkitAudioContext;
    if (!audio && Ctx) audio = new Ctx();
    if (audio && audio.state === 'suspended') audio.resume().catch(() => {});
  }
  function feedback(ok) {
    if (navigator.vibrate) navigator.vibrate(ok ? 80 : [150, 80, 150]);
    if (!audio || audio.state !== 'running') return;
    const osc = audio.createOscillator();
    const gain = audio.createGain();
    osc.type = ok ? 'sine' : 'square';
    osc.frequency.value = ok ? 880 : 220;
    gain.gain.value = 0.15;
    osc.connect(gain).connect(audio.destination);
    osc.start();
    osc.stop(audio.currentTime + (ok ? 0.15 : 0.45));
  }

  /** A line in "Recent scans"; kept in IndexedDB unless the caller keeps it with its own write. */
  function addRecent(entry, keep = true) {
    recent.unshift(entry);
    recent = recent.slice(0, RECENT_MAX);
    drawRecent();
    if (keep && db) inTx(['meta'], 'readwrite', (t) => t.objectStore('meta').put(recent, 'recent')).catch(() => {});
  }
  function drawRecent() {
    const ol = $('recent');
    if (!recent.length) {
      const li = document.createElement('li');
      li.textContent = say('noScans');
      ol.replaceChildren(li);
      return;
    }
    ol.replaceChildren(
      ...recent.map((r) => {
        const li = document.createElement('li');
        li.dataset.ok = String(r.ok);
        li.dataset.clientId = r.client_id || '';
        const time = document.createElement('time');
        time.dateTime = r.at;
        time.textContent = clockSec.format(new Date(r.at));
        const what = document.createElement('span');
        what.className = 'what';
        what.textContent = say(r.ok ? 'admitted' : 'refusedLine', { label: r.label }) + (r.detail ? ' · ' + r.detail : '');
        li.append(time, what);
        if (r.server) {
          const flag = document.createElement('span');
          flag.className = 'flag';
          flag.textContent = r.server;
          li.append(flag);
        }
        return li;
      }),
    );
  }

  // ---------------------------------------------------------------- scans
  async function sha256hex(text) {
    const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text));
    return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, '0')).join('');
  }

  /** The token in what a QR code holds: a ticket URL (…/t/<token>), an order URL (…/t/o/<token>) or a bare token. */
  function tokenOf(text) {
    const order = /\/t\/o\/([^/?#]+)\/?$/.exec(text);
    if (order) return { order: true };
    const m = /\/t\/([^/?#]+)\/?$/.exec(text);
    try {
      return { token: m ? decodeURIComponent(m[1]) : text.trim() };
    } catch {
      return { token: text.trim() };
    }
  }

  /** A typed reference: the ticket's, or an order's when that order has a single ticket on the list. */
  function ticketByRef(typed) {
    const ref = typed.trim().toUpperCase();
    const exact = byRef.get(ref);
    if (exact) return { ticket: exact };
    const prefix = ref + '-';
    const matches = [];
    for (const [key, t] of byRef) if (key.startsWith(prefix)) matches.push(t);
    if (matches.length === 1) return { ticket: matches[0] };
    if (matches.length > 1) return { several: matches.map((t) => t.reference).sort() };
    return {};
  }

  async function scan(input, how) {
    const at = now();
    let ticket = null;
    let qr = null;
    if (how === 'typed') {
      const found = ticketByRef(input);
      if (found.several) {
        showResult(
          false,
          say('several'),
          say('orderRef', { ref: input.trim().toUpperCase() }),
          say('typeOne', { refs: found.several.join(', ') }),
        );
        addRecent({ at: at.toISOString(), ok: false, label: input.trim().toUpperCase(), detail: say('severalShort') });
        return;
      }
      ticket = found.ticket;
    } else {
      const code = tokenOf(input);
      if (code.order) {
        showResult(false, say('orderCode'), '', say('orderCodeDetail'));
        addRecent({ at: at.toISOString(), ok: false, label: say('anOrderCode'), detail: '' });
        return;
      }
      qr = code.token;
      ticket = byQr.get(await sha256hex(qr));
    }
    if (!ticket) {
      const label = how === 'typed' ? input.trim().toUpperCase() : say('unknownCode');
      showResult(false, say('unknown'), how === 'typed' ? label : '', downloaded ? say('notOnList') : say('notDownloaded'));
      addRecent({ at: at.toISOString(), ok: false, label, detail: say('unknownShort') });
      return;
    }
    let ok = false;
    let detail = '';
    if (ticket.status !== 'valid') detail = say('notValid');
    else if (admitted(ticket)) detail = say('already', { time: clock.format(new Date(admitted(ticket))) });
    else ok = true;
    if (ok) ticket.local_at = at.toISOString();
    showResult(
      ok,
      ok ? say('valid') : say('refused'),
      ticket.attendee_name || ticket.reference,
      ok ? ticket.ticket_type : detail,
    );
    const entry = {
      // the device as named when scanning: a retried upload must repeat it to stay idempotent
      device,
      client_id: crypto.randomUUID(),
      scanned_at: at.toISOString(),
      ticket_id: ticket.id,
      qr,
    };
    addRecent(
      {
        at: entry.scanned_at,
        ok,
        client_id: entry.client_id,
        label: ticket.reference + ' ' + (ticket.attendee_name || ''),
        detail: ok ? ticket.ticket_type : detail.replace(/\.$/, ''),
      },
      false,
    );
    // every scan of a known ticket is uploaded, refused ones too: the server keeps them as conflicts
    await inTx(['queue', 'tickets', 'meta'], 'readwrite', (t) => {
      t.objectStore('queue').put(entry);
      if (ok) t.objectStore('tickets').put(ticket);
      t.objectStore('meta').put(recent, 'recent');
    });
    pending += 1;
    render();
    setTimeout(sync, 0);
  }

  // ---------------------------------------------------------------- the exchange with the server
  class Offline extends Error {}
  class SignedOut extends Error {}

  async function call(url, init) {
    let res;
    try {
      res = await fetch(url, { credentials: 'same-origin', cache: 'no-store', ...init });
    } catch {
      throw new Offline('no connection');
    }
    if (res.status === 401 || res.redirected) throw new SignedOut('signed out');
    if (!res.ok) {
      const body = await res.json().catch(() => null);
      const code = body && body.error ? body.error.code : 'http_' + res.status;
      if (code === 'csrf_failed') csrf = null;
      throw new Error(code);
    }
    return res;
  }

  /** Everything that changed since the cursor, page by page; the cursor moves with each stored page. */
  async function pull() {
    let more = true;
    let got = 0;
    while (more) {
      const url = cfg.sync + '?limit=' + PAGE + (cursor ? '&cursor=' + encodeURIComponent(cursor) : '');
      const sent = Date.now();
      const res = await call(url, { headers: { accept: 'application/json' } });
      const fresh = res.headers.get('x-csrf-token');
      if (fresh) csrf = fresh;
      const serverTime = Date.parse(res.headers.get('x-server-time') || '');
      if (Number.isFinite(serverTime)) skew = serverTime - (sent + Date.now()) / 2;
      const body = await res.json();
      const tickets = body.tickets.map((t) => {
        const old = byId.get(t.id);
        return old && old.local_at ? { ...t, local_at: old.local_at } : t;
      });
      await inTx(['tickets', 'meta'], 'readwrite', (t) => {
        const store = t.objectStore('tickets');
        for (const ticket of tickets) store.put(ticket);
        t.objectStore('meta').put(body.next_cursor, 'cursor');
        t.objectStore('meta').put(skew, 'skew');
      });
      for (const ticket of tickets) index(ticket);
      cursor = body.next_cursor;
      more = body.has_more;
      got += tickets.length;
      if (!downloaded && more) notice(say('downloading', { count: count(got) }));
    }
    if (!downloaded) {
      downloaded = true;
      await inTx(['meta'], 'readwrite', (t) => t.objectStore('meta').put(true, 'downloaded'));
    }
  }

  /** The queued scans, oldest first, in batches; each answered scan leaves the queue. */
  async function push() {
    for (;;) {
      const queued = await inTx(['queue'], 'readonly', (t) => ask(t.objectStore('queue').getAll()));
      pending = queued.length;
      if (!queued.length) return;
      if (!csrf) await pull();
      queued.sort((a, b) => (a.scanned_at < b.scanned_at ? -1 : a.scanned_at > b.scanned_at ? 1 : 0));
      const from = queued[0].device || device;
      const batch = queued.filter((s) => (s.device || device) === from).slice(0, UPLOAD_MAX);
      const res = await call(cfg.batch, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json', 'x-csrf-token': csrf || '' },
        body: JSON.stringify({
          device: from,
          checkins: batch.map((s) =>
            s.qr
              ? { client_id: s.client_id, scanned_at: s.scanned_at, qr_code_identifier: s.qr }
              : { client_id: s.client_id, scanned_at: s.scanned_at, ticket_id: s.ticket_id },
          ),
        }),
      });
      const { results } = await res.json();
      for (const r of results) {
        const entry = recent.find((e) => e.client_id === r.client_id);
        if (!entry) continue;
        if (r.result === 'unknown_ticket') entry.server = say('notAtServer');
        else if (entry.ok && r.conflict)
          entry.server =
            r.reason === 'already_checked_in'
              ? say('conflictAdmitted', { time: clock.format(new Date(r.first_checked_in_at)) })
              : say('conflictInvalid');
        else entry.server = entry.server || say('uploaded');
      }
      await inTx(['queue', 'meta'], 'readwrite', (t) => {
        const store = t.objectStore('queue');
        for (const r of results) store.delete(r.client_id);
        t.objectStore('meta').put(recent, 'recent');
      });
      pending = Math.max(0, queued.length - results.length);
      drawRecent();
      render();
    }
  }

  async function sync() {
    if (syncing || !db) return;
    syncing = true;
    try {
      await pull();
      await push();
      netState = 'online';
      lastSync = now();
    } catch (err) {
      if (err instanceof Offline) netState = 'offline';
      else if (err instanceof SignedOut) netState = 'signed-out';
      else {
        netState = navigator.onLine ? 'online' : 'offline';
        notice(say('serverAnswered', { error: err.message }), 'bad');
        syncing = false;
        render();
        return;
      }
    }
    syncing = false;
    render();
    readyNotice();
  }

  // ---------------------------------------------------------------- the camera
  let stream = null;
  let detector = null;
  let canvas = null;
  let lastCode = '';
  let lastSeen = 0;
  let detecting = false;

  function loadScript(src) {
    return new Promise((resolve, reject) => {
      const s = document.createElement('script');
      s.src = src;
      s.onload = resolve;
      s.onerror = () => reject(new Error('could not load ' + src));
      document.head.append(s);
    });
  }

  async function startCamera() {
    unlockAudio();
    const button = $('start-camera');
    if (!navigator.mediaDevices || !navigator.mediaDevices.getUserMedia) {
      notice(say('noCamera'), 'bad');
      return;
    }
    try {
      stream = await navigator.mediaDevices.getUserMedia({
        audio: false,
        video: { facingMode: 'environment', width: { ideal: 1280 }, height: { ideal: 720 } },
      });
    } catch (err) {
      notice(say('cameraUnavailable', { error: err.name }), 'bad');
      return;
    }
    const video = $('video');
    video.srcObject = stream;
    await video.play().catch(() => {});
    if ('BarcodeDetector' in window) {
      try {
        const formats = await window.BarcodeDetector.getSupportedFormats();
        if (formats.includes('qr_code')) detector = new window.BarcodeDetector({ formats: ['qr_code'] });
      } catch {
        detector = null;
      }
    }
    if (!detector && !window.jsQR) await loadScript(cfg.jsqr);
    button.hidden = true;
    $('frame').hidden = false;
    $('camera').dataset.running = 'true';
    setTimeout(look, 0);
  }

  async function read(video) {
    if (detector) {
      const codes = await detector.detect(video);
      return codes.length ? codes[0].rawValue : null;
    }
    const width = Math.min(640, video.videoWidth);
    const height = Math.round((video.videoHeight * width) / video.videoWidth);
    canvas = canvas || document.createElement('canvas');
    canvas.width = width;
    canvas.height = height;
    const g = canvas.getContext('2d', { willReadFrequently: true });
    g.drawImage(video, 0, 0, width, height);
    const found = window.jsQR(g.getImageData(0, 0, width, height).data, width, height, { inversionAttempts: 'attemptBoth' });
    return found ? found.data : null;
  }

  async function look() {
    if (!stream) return;
    const video = $('video');
    if (!detecting && !resultShown() && video.readyState >= 2 && video.videoWidth) {
      detecting = true;
      try {
        const started = performance.now();
        const text = await read(video);
        scanStarted = started;
        const now = Date.now();
        if (text) {
          // a code held in front of the camera is one scan, however many frames show it
          const same = text === lastCode && now - lastSeen < SAME_CODE_MS;
          lastCode = text;
          lastSeen = now;
          if (!same) await scan(text, 'camera');
        }
      } catch {
        // a frame that cannot be read: the next one will do
      }
      detecting = false;
    } else if (resultShown() && lastCode) {
      lastSeen = Date.now();
    }
    setTimeout(look, 120);
  }

  /** Registers the service worker and asks it to keep this page and its files for offline use. */
  async function keepForOffline() {
    await navigator.serviceWorker.register(cfg.worker, { scope: '/console/' });
    const registration = await navigator.serviceWorker.ready;
    const script = document.querySelector('script[src*="/console/assets/scanner.js"]');
    const icon = document.querySelector('link[rel=icon]');
    const manifest = document.querySelector('link[rel=manifest]');
    const urls = [location.pathname, script && script.src, cfg.jsqr, icon && icon.href, manifest && manifest.href].filter(
      Boolean,
    );
    navigator.serviceWorker.addEventListener('message', (e) => {
      if (e.data && e.data.type === 'kept') document.documentElement.dataset.offlineReady = 'true';
    });
    registration.active.postMessage({ type: 'keep', urls });
  }

  // ---------------------------------------------------------------- start
  async function start() {
    $('result').addEventListener('click', hideResult);
    document.addEventListener('keydown', (e) => {
      if (e.key === 'Escape') hideResult();
    });
    $('start-camera').addEventListener('click', () => startCamera());
    $('manual').addEventListener('submit', (e) => {
      e.preventDefault();
      unlockAudio();
      scanStarted = performance.now();
      const input = $('ref');
      const value = input.value;
      if (!value.trim()) return;
      input.value = '';
      scan(value, 'typed').catch((err) => notice(say('notRecorded', { error: err.message }), 'bad'));
    });
    window.addEventListener('online', () => sync());
    window.addEventListener('offline', () => {
      netState = 'offline';
      render();
      readyNotice();
    });

    if ('serviceWorker' in navigator) keepForOffline().catch(() => {});
    if (!window.isSecureContext || !window.indexedDB || !window.crypto || !crypto.subtle) {
      notice(say('needsHttps'), 'bad');
      return;
    }

    db = await openDb();
    const [tickets, meta] = await inTx(['tickets', 'meta'], 'readonly', async (t) => {
      const m = t.objectStore('meta');
      return Promise.all([
        ask(t.objectStore('tickets').getAll()),
        Promise.all(['cursor', 'device', 'recent', 'downloaded', 'skew'].map((k) => ask(m.get(k)))),
      ]);
    });
    for (const t of tickets) index(t);
    [cursor, device, recent, downloaded, skew] = [
      meta[0] || null,
      meta[1] || null,
      meta[2] || [],
      Boolean(meta[3]),
      meta[4] || 0,
    ];
    // the device: this browser's id for the list, named with whoever is signed in now
    if (!device) {
      device = Array.from(crypto.getRandomValues(new Uint8Array(3)), (b) => b.toString(16).padStart(2, '0')).join('');
      await inTx(['meta'], 'readwrite', (t) => t.objectStore('meta').put(device, 'device'));
    }
    device = (cfg.who.slice(0, 90) + ' · ' + device).slice(0, 100);
    pending = await inTx(['queue'], 'readonly', (t) => ask(t.objectStore('queue').count()));
    drawRecent();
    render();
    if (downloaded) readyNotice();
    await sync();
    setInterval(sync, SYNC_EVERY_MS);
  }

  start().catch((err) => notice(say('couldNotStart', { error: err.message }), 'bad'));
})();
