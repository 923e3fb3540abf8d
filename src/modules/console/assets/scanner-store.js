// The door scanner's list and queue on the device, and its exchange with the server (part of
// scanner.js: console.assets.ts serves the parts joined into that one file). The check-in list and
// the scans waiting to upload live in IndexedDB and, for deciding scans, in maps by id, QR hash and
// reference; a sync pulls what changed since the cursor, then uploads the queued scans.
(() => {
  'use strict';
  const PAGE = 5000;
  const UPLOAD_MAX = 500;

  class Offline extends Error {}
  class SignedOut extends Error {}

  async function sha256hex(text) {
    const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text));
    return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, '0')).join('');
  }

  const ask = (r) =>
    new Promise((resolve, reject) => {
      r.onsuccess = () => resolve(r.result);
      r.onerror = () => reject(r.error);
    });

  /**
   * The store of the list `cfg.key`. `hooks.downloading(count)` reports the first download's
   * progress; `hooks.answered(results)` the server's answers to an uploaded batch, before they
   * leave the queue (with `recent`, which the same write keeps); `hooks.uploaded()` follows it.
   */
  function createStore(cfg, hooks) {
    const byId = new Map();
    const byQr = new Map();
    const byRef = new Map();
    let db = null;
    const store = {
      cursor: null,
      /** this browser's id for the list, named with whoever is signed in now (set by `open`) */
      device: null,
      csrf: cfg.csrf,
      downloaded: false,
      /** scans waiting to upload */
      pending: 0,
      /** the lines of "Recent scans", newest first, kept with the list */
      recent: [],
      /** server time minus device time (ms), from the last sync: scans are stamped on the server's clock */
      skew: 0,
      opened: () => db !== null,
      now: () => new Date(Date.now() + store.skew),
      open,
      admitted,
      totals,
      ticketByRef,
      ticketByCode: async (token) => byQr.get(await sha256hex(token)),
      keepRecent: () => inTx(['meta'], 'readwrite', (t) => t.objectStore('meta').put(store.recent, 'recent')),
      record,
      pull,
      push,
    };

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

    /** Opens the database and loads what this device kept: the list, its cursor, device, recent scans, queue. */
    async function open() {
      db = await openDb();
      const [tickets, meta] = await inTx(['tickets', 'meta'], 'readonly', async (t) => {
        const m = t.objectStore('meta');
        return Promise.all([
          ask(t.objectStore('tickets').getAll()),
          Promise.all(['cursor', 'device', 'recent', 'downloaded', 'skew'].map((k) => ask(m.get(k)))),
        ]);
      });
      for (const t of tickets) index(t);
      [store.cursor, store.device, store.recent, store.downloaded, store.skew] = [
        meta[0] || null,
        meta[1] || null,
        meta[2] || [],
        Boolean(meta[3]),
        meta[4] || 0,
      ];
      if (!store.device) {
        store.device = Array.from(crypto.getRandomValues(new Uint8Array(3)), (b) => b.toString(16).padStart(2, '0')).join('');
        await inTx(['meta'], 'readwrite', (t) => t.objectStore('meta').put(store.device, 'device'));
      }
      store.device = (cfg.who.slice(0, 90) + ' · ' + store.device).slice(0, 100);
      store.pending = await inTx(['queue'], 'readonly', (t) => ask(t.objectStore('queue').count()));
    }

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

    function admitted(t) {
      return t.checked_in_at || t.local_at;
    }

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

    /** A scan into the queue, with the ticket it admitted (if it did) and the recent scans, in one write. */
    async function record(entry, admittedTicket) {
      await inTx(['queue', 'tickets', 'meta'], 'readwrite', (t) => {
        t.objectStore('queue').put(entry);
        if (admittedTicket) t.objectStore('tickets').put(admittedTicket);
        t.objectStore('meta').put(store.recent, 'recent');
      });
      store.pending += 1;
    }

    // ---------------------------------------------------------------- the exchange with the server
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
        if (code === 'csrf_failed') store.csrf = null;
        throw new Error(code);
      }
      return res;
    }

    /** Everything that changed since the cursor, page by page; the cursor moves with each stored page. */
    async function pull() {
      let more = true;
      let got = 0;
      while (more) {
        const url = cfg.sync + '?limit=' + PAGE + (store.cursor ? '&cursor=' + encodeURIComponent(store.cursor) : '');
        const sent = Date.now();
        const res = await call(url, { headers: { accept: 'application/json' } });
        const fresh = res.headers.get('x-csrf-token');
        if (fresh) store.csrf = fresh;
        const serverTime = Date.parse(res.headers.get('x-server-time') || '');
        if (Number.isFinite(serverTime)) store.skew = serverTime - (sent + Date.now()) / 2;
        const body = await res.json();
        const tickets = body.tickets.map((t) => {
          const old = byId.get(t.id);
          return old && old.local_at ? { ...t, local_at: old.local_at } : t;
        });
        await inTx(['tickets', 'meta'], 'readwrite', (t) => {
          const kept = t.objectStore('tickets');
          for (const ticket of tickets) kept.put(ticket);
          t.objectStore('meta').put(body.next_cursor, 'cursor');
          t.objectStore('meta').put(store.skew, 'skew');
        });
        for (const ticket of tickets) index(ticket);
        store.cursor = body.next_cursor;
        more = body.has_more;
        got += tickets.length;
        if (!store.downloaded && more) hooks.downloading(got);
      }
      if (!store.downloaded) {
        store.downloaded = true;
        await inTx(['meta'], 'readwrite', (t) => t.objectStore('meta').put(true, 'downloaded'));
      }
    }

    /** The queued scans, oldest first, in batches; each answered scan leaves the queue. */
    async function push() {
      for (;;) {
        const queued = await inTx(['queue'], 'readonly', (t) => ask(t.objectStore('queue').getAll()));
        store.pending = queued.length;
        if (!queued.length) return;
        if (!store.csrf) await pull();
        queued.sort((a, b) => (a.scanned_at < b.scanned_at ? -1 : a.scanned_at > b.scanned_at ? 1 : 0));
        const from = queued[0].device || store.device;
        const batch = queued.filter((s) => (s.device || store.device) === from).slice(0, UPLOAD_MAX);
        const res = await call(cfg.batch, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/json', 'x-csrf-token': store.csrf || '' },
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
        hooks.answered(results);
        await inTx(['queue', 'meta'], 'readwrite', (t) => {
          const queue = t.objectStore('queue');
          for (const r of results) queue.delete(r.client_id);
          t.objectStore('meta').put(store.recent, 'recent');
        });
        store.pending = Math.max(0, queued.length - results.length);
        hooks.uploaded();
      }
    }

    return store;
  }

  window.admitScanner = { ...window.admitScanner, createStore, Offline, SignedOut };
})();
