// The door scanner (contract section 9): what the door person sees and does. It decides every scan
// on the device (so a result shows at once, network or not) from the list its store keeps
// (scanner-store.js), and syncs with the server every few seconds when it can. Plain browser
// JavaScript, no build step: console.assets.ts serves scanner-store.js, scanner-camera.js and this
// file joined, in that order, as scanner.js.
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
  const RECENT_MAX = 30;

  const locale = cfg.locale || 'en-GB';
  const clock = new Intl.DateTimeFormat(locale, { timeZone: cfg.timezone, hour: '2-digit', minute: '2-digit' });
  const clockSec = new Intl.DateTimeFormat(locale, {
    timeZone: cfg.timezone,
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
  });
  const count = (n) => n.toLocaleString(locale);

  let netState = 'unknown';
  let lastSync = null;
  let syncing = false;
  // the list and the queue on this device (scanner-store.js)
  const store = window.admitScanner.createStore(cfg, {
    downloading: (got) => notice(say('downloading', { count: count(got) })),
    // the server's answers flag the scans' lines in "Recent scans"
    answered(results) {
      for (const r of results) {
        const entry = store.recent.find((e) => e.client_id === r.client_id);
        if (!entry) continue;
        if (r.result === 'unknown_ticket') entry.server = say('notAtServer');
        else if (entry.ok && r.conflict)
          entry.server =
            r.reason === 'already_checked_in'
              ? say('conflictAdmitted', { time: clock.format(new Date(r.first_checked_in_at)) })
              : say('conflictInvalid');
        else entry.server = entry.server || say('uploaded');
      }
    },
    uploaded() {
      drawRecent();
      render();
    },
  });
  // the camera (scanner-camera.js): a code it reads is scanned as one typed is
  const camera = window.admitScanner.createCamera(cfg.jsqr, {
    busy: () => resultShown(),
    frame: (started) => (scanStarted = started),
    found: (text) => scan(text, 'camera'),
    problem: (key, values) => notice(say(key, values), 'bad'),
  });

  // ---------------------------------------------------------------- what the person sees
  function render() {
    if (store.downloaded) {
      const { valid, checked } = store.totals();
      $('checked').textContent = count(checked);
      $('total').textContent = count(valid);
    }
    $('pending').textContent = count(store.pending);
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
    if (!store.downloaded) return;
    const { valid } = store.totals();
    if (netState === 'signed-out')
      notice(say('signedOutNotice', { count: count(store.pending) }), 'bad', { href: cfg.signIn, text: say('signIn') });
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
    store.recent.unshift(entry);
    store.recent = store.recent.slice(0, RECENT_MAX);
    drawRecent();
    if (keep && store.opened()) store.keepRecent().catch(() => {});
  }
  function drawRecent() {
    const ol = $('recent');
    if (!store.recent.length) {
      const li = document.createElement('li');
      li.textContent = say('noScans');
      ol.replaceChildren(li);
      return;
    }
    ol.replaceChildren(
      ...store.recent.map((r) => {
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

  async function scan(input, how) {
    const at = store.now();
    let ticket;
    let qr = null;
    if (how === 'typed') {
      const found = store.ticketByRef(input);
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
      ticket = await store.ticketByCode(qr);
    }
    if (!ticket) {
      const label = how === 'typed' ? input.trim().toUpperCase() : say('unknownCode');
      showResult(false, say('unknown'), how === 'typed' ? label : '', store.downloaded ? say('notOnList') : say('notDownloaded'));
      addRecent({ at: at.toISOString(), ok: false, label, detail: say('unknownShort') });
      return;
    }
    let ok = false;
    let detail = '';
    if (ticket.status !== 'valid') detail = say('notValid');
    else if (store.admitted(ticket)) detail = say('already', { time: clock.format(new Date(store.admitted(ticket))) });
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
      device: store.device,
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
    await store.record(entry, ok ? ticket : null);
    render();
    setTimeout(sync, 0);
  }

  // ---------------------------------------------------------------- the exchange with the server
  async function sync() {
    if (syncing || !store.opened()) return;
    syncing = true;
    try {
      await store.pull();
      await store.push();
      netState = 'online';
      lastSync = store.now();
    } catch (err) {
      if (err instanceof window.admitScanner.Offline) netState = 'offline';
      else if (err instanceof window.admitScanner.SignedOut) netState = 'signed-out';
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
    $('start-camera').addEventListener('click', () => {
      unlockAudio();
      camera.start();
    });
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

    await store.open();
    drawRecent();
    render();
    if (store.downloaded) readyNotice();
    await sync();
    setInterval(sync, SYNC_EVERY_MS);
  }

  start().catch((err) => notice(say('couldNotStart', { error: err.message }), 'bad'));
})();
