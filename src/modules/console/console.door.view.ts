import { html, raw, type SafeHtml } from '../../platform/http/html.ts';
import { dateTimeFormat } from '../../platform/time.ts';
import {
  CONFLICTS_PER_PAGE,
  type ConflictRow,
  type DoorEvent,
  type DoorList,
  type DoorListInfo,
} from '../checkin/door.service.ts';
import { asset } from './console.assets.ts';
import { can, type Viewer } from './console.http.ts';
import { consolePage, emptyState, nextStep } from './console-layout.view.ts';
import { consoleLang, formatTag, t } from './console-lang.ts';
import { statusLabel } from './console.order-desk.view.ts';
import { consoleScannerEn, type ConsoleScanner } from '../i18n/console-scanner.en.ts';

/**
 * The door pages of the console: the lists to scan on, the scanner (a document of its own rather
 * than the console layout, with its own style and script, kept by a service worker for offline
 * use) and the conflicts an offline upload flagged.
 */

const when = (at: Date, tz: string, style: 'short' | 'medium' = 'medium') =>
  dateTimeFormat(formatTag(), { timeZone: tz, dateStyle: style, timeStyle: 'short' }).format(at);
const timeOf = (at: Date, tz: string) =>
  dateTimeFormat(formatTag(), { timeZone: tz, hour: '2-digit', minute: '2-digit', second: '2-digit' }).format(at);
const n = (v: number) => v.toLocaleString(formatTag());

/** JSON for a `<script type="application/json">`: nothing in it can close the element. */
const scriptJson = (value: unknown) => raw(JSON.stringify(value).replace(/</g, '\\u003c'));

/** Where the account's door pages live. */
const doorBase = (v: Viewer) => `/console/a/${encodeURIComponent(v.account!.slug)}/door`;

/** One list's scanner; its manifest, sync, upload and conflicts hang below it. */
export const scannerHref = (v: Viewer, info: DoorListInfo) =>
  `${doorBase(v)}/${encodeURIComponent(info.event.slug)}/${info.list.id}`;

/** The events at the door now or soon (or the past ones), each with its lists. */
export function doorListPage(viewer: Viewer, events: DoorEvent[], past: boolean): string {
  const base = doorBase(viewer);
  const m = t();
  const listRow = (slug: string, l: DoorList) => html`<tr>
      <td><strong>${l.name}</strong></td>
      <td class="num">${n(l.checked_in)} / ${n(l.tickets)}</td>
      <td class="num">${
        l.conflicts ? html`<a href="${base}/${slug}/${l.id}/conflicts">${n(l.conflicts)}</a>` : html`<span class="muted">0</span>`
      }</td>
      <td><a class="button" href="${base}/${slug}/${l.id}">${m.openScanner}<span class="skip">${m.forList(l.name)}</span></a></td>
    </tr>`;
  return consolePage({
    title: past ? m.doorTitlePast : m.doorTitle,
    viewer,
    active: 'door',
    body: html`<p class="muted">${m.doorIntro}</p>
          ${
            events.length
              ? events.map(
                  (e) => html`<section class="card" aria-labelledby="ev-${e.slug}">
                  <h2 id="ev-${e.slug}">${e.name}</h2>
                  <p class="muted">${when(e.starts_at, e.timezone)}${e.ends_at ? html` – ${when(e.ends_at, e.timezone)}` : ''}</p>
                  ${
                    e.lists.length
                      ? html`<div class="table-wrap" tabindex="0" role="region" aria-label="${m.listsOf(e.name)}">
                        <table>
                          <thead>
                            <tr>
                              <th scope="col">${m.checkinList}</th>
                              <th scope="col" class="num">${m.checkedIn}</th>
                              <th scope="col" class="num">${m.conflicts}</th>
                              <th scope="col"><span class="skip">${m.scanner}</span></th>
                            </tr>
                          </thead>
                          <tbody>
                            ${e.lists.map((l) => listRow(e.slug, l))}
                          </tbody>
                        </table>
                      </div>`
                      : html`<p>
                          ${m.noListYet}
                          ${
                            can(viewer, 'events.write')
                              ? html`<a href="/console/a/${encodeURIComponent(viewer.account!.slug)}/events/${e.slug}/checkin-lists">${m.addOne}</a> ${m.addOneExplained}`
                              : m.askOrganiser
                          }
                        </p>`
                  }
                </section>`,
                )
              : noDoorEvents(viewer, past)
          }
          ${
            // with nothing at the door, the empty card already offers the past events
            past || events.length
              ? html`<p>${past ? html`<a href="${base}">${m.doorNow}</a>` : html`<a href="${base}?past=1">${m.pastEvents}</a>`}</p>`
              : ''
          }`,
  });
}

/** No event at the door: when one will be, and the next step (an event to create, or the past ones to see). */
function noDoorEvents(viewer: Viewer, past: boolean): SafeHtml {
  const m = t();
  if (past) return emptyState({ name: 'door-past', text: m.emptyDoorPast });
  const events = `/console/a/${encodeURIComponent(viewer.account!.slug)}/events`;
  return emptyState({
    name: 'door',
    text: m.emptyDoor,
    next: html`${can(viewer, 'events.write') ? nextStep(`${events}/new`, m.emptyCreateEvent) : ''}
      ${nextStep(`${doorBase(viewer)}?past=1`, m.emptySeePast, 'secondary')}`,
  });
}

/** The scanned list's conflicts, newest first, one page of them; `pageNo` is already in range. */
export function conflictsPage(
  viewer: Viewer,
  info: DoorListInfo,
  { rows, total }: { rows: ConflictRow[]; total: number },
  pageNo: number,
): string {
  const tz = info.event.timezone;
  const here = scannerHref(viewer, info);
  const pages = Math.max(1, Math.ceil(total / CONFLICTS_PER_PAGE));
  const m = t();
  const why = (r: ConflictRow): SafeHtml => {
    if (r.reason === 'not_checkable') {
      const state =
        r.ticket_status !== 'valid'
          ? m.conflictTicketVoid
          : r.order_status !== 'paid'
            ? m.orderWas(statusLabel(r.order_status).toLowerCase())
            : m.notOnList;
      return html`<strong>${m.notValid}</strong>${m.whenScanned(state)}`;
    }
    return r.admitted_at
      ? html`<strong>${m.alreadyIn}</strong>${m.atTime(timeOf(r.admitted_at, tz))}${
          r.admitted_online ? m.online : r.admitted_by ? m.byWhom(r.admitted_by) : ''
        }.`
      : html`<strong>${m.alreadyIn}</strong>.`;
  };
  return consolePage({
    title: m.conflictsTitle(info.list.name),
    viewer,
    active: 'door',
    body: html`<p><a href="${doorBase(viewer)}">${m.doorTitle}</a> · ${info.event.name} ·
            <a href="${here}">${m.openScanner}</a></p>
          <p class="muted">${m.conflictsIntro}</p>
          ${
            rows.length
              ? html`<div class="table-wrap" tabindex="0" role="region" aria-label="${m.conflicts}">
                <table>
                  <thead>
                    <tr>
                      <th scope="col">${m.scanned}</th>
                      <th scope="col">${m.ticket}</th>
                      <th scope="col">${m.device}</th>
                      <th scope="col">${m.whyNot}</th>
                    </tr>
                  </thead>
                  <tbody>
                    ${rows.map(
                      (r) => html`<tr>
                        <td>${when(r.scanned_at, tz, 'short')}<div class="muted">${r.uploaded_at ? m.uploaded(timeOf(r.uploaded_at, tz)) : ''}</div></td>
                        <td><strong>${r.ticket_ref}</strong> ${r.attendee_name ?? ''}<div class="muted">${r.ticket_type} · ${m.orderRef(r.order_ref)}</div></td>
                        <td>${r.device ?? html`<span class="muted">${m.onlineDevice}</span>`}</td>
                        <td>${why(r)}</td>
                      </tr>`,
                    )}
                  </tbody>
                </table>
              </div>
              ${
                pages > 1
                  ? html`<nav class="actions" aria-label="${m.pages}" style="margin-top:1rem">
                    ${pageNo > 1 ? html`<a class="button secondary" href="${here}/conflicts?page=${pageNo - 1}">${m.newer}</a>` : ''}
                    <span class="muted">${m.pageOf(pageNo, pages, n(total))}</span>
                    ${pageNo < pages ? html`<a class="button secondary" href="${here}/conflicts?page=${pageNo + 1}">${m.older}</a>` : ''}
                  </nav>`
                  : ''
              }`
              : html`<div class="card"><p>${m.noConflicts}</p></div>`
          }`,
  });
}

const SCANNER_CSS = raw(`<style>
:root{--ok:#0f7b3f;--bad:#b3261e;--ink:#f8fafc;--panel:#1e293b;--line:#334155;--muted:#cbd5e1;font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
*{box-sizing:border-box}html,body{margin:0;min-height:100%;background:#0f172a;color:var(--ink)}
a{color:#bfdbfe}button,input{font:inherit}
.bar{display:flex;align-items:center;gap:.75rem;padding:.6rem 1rem;background:#020617;border-bottom:1px solid var(--line);flex-wrap:wrap}
.bar h1{font-size:1rem;margin:0;flex:1;min-width:10rem;line-height:1.3}.bar h1 small{display:block;color:var(--muted);font-weight:400}
.net{font-size:.85rem;padding:.2rem .6rem;border-radius:999px;background:#334155;white-space:nowrap}
.net[data-state=online]{background:#14532d}.net[data-state=offline]{background:#7c2d12}
.wrap{max-width:40rem;margin:0 auto;padding:1rem;display:grid;gap:1rem}
.stats{display:grid;grid-template-columns:repeat(3,1fr);gap:.5rem}
.stat{background:var(--panel);border:1px solid var(--line);border-radius:10px;padding:.6rem .75rem}
.stat b{display:block;font-size:1.5rem;font-variant-numeric:tabular-nums;line-height:1.2}.stat span{color:var(--muted);font-size:.85rem}
.camera{position:relative;background:#000;border-radius:12px;overflow:hidden;aspect-ratio:4/3;display:grid;place-items:center;border:1px solid var(--line)}
.camera video{width:100%;height:100%;object-fit:cover;display:block}
.camera .frame{position:absolute;inset:18%;border:3px solid rgba(255,255,255,.85);border-radius:16px;pointer-events:none}
.camera button{position:absolute}
.big{min-height:3.5rem;padding:.75rem 1.25rem;border-radius:10px;border:0;background:#2563eb;color:#fff;font-weight:700;font-size:1.1rem;cursor:pointer}
.big:hover{background:#1d4ed8}.big.secondary{background:#334155}
form.manual{display:grid;grid-template-columns:1fr auto;gap:.5rem;align-items:end}
form.manual label{grid-column:1/-1;font-weight:600}
form.manual input{min-height:3.5rem;padding:.5rem .75rem;border-radius:10px;border:1px solid #64748b;background:#0b1222;color:var(--ink);
font-size:1.25rem;letter-spacing:.04em;text-transform:uppercase;width:100%}
input:focus,button:focus,a:focus{outline:3px solid #93c5fd;outline-offset:2px}
.note{background:var(--panel);border:1px solid var(--line);border-radius:10px;padding:.75rem 1rem;margin:0}
.note[data-kind=bad]{border-color:#f87171}
.recent h2{font-size:1rem;margin:0 0 .5rem}.recent ol{list-style:none;margin:0;padding:0;display:grid;gap:.35rem}
.recent li{display:flex;gap:.6rem;align-items:baseline;background:var(--panel);border-radius:8px;padding:.45rem .7rem;border-left:6px solid var(--line)}
.recent li[data-ok=true]{border-left-color:#22c55e}.recent li[data-ok=false]{border-left-color:#f87171}
.recent time{color:var(--muted);font-variant-numeric:tabular-nums;font-size:.85rem}.recent .what{flex:1}
.recent .flag{font-size:.8rem;color:#fecaca}
.result{position:fixed;inset:0;display:none;flex-direction:column;align-items:center;justify-content:center;text-align:center;padding:2rem;
z-index:10;cursor:pointer;color:#fff}
.result[data-ok=true]{display:flex;background:var(--ok)}.result[data-ok=false]{display:flex;background:var(--bad)}
.result .mark{font-size:7rem;line-height:1;font-weight:800}.result .verdict{font-size:2.5rem;font-weight:800;margin:.5rem 0}
.result .who{font-size:1.6rem;font-weight:600}.result .detail{font-size:1.2rem;margin-top:.5rem;max-width:30rem}
.result .tap{position:absolute;bottom:1.5rem;font-size:.95rem;opacity:.9}
.skip{position:absolute;left:-999px}.skip:focus{left:1rem;top:1rem;background:#fff;color:#000;padding:.5rem;z-index:20}
.foot{color:var(--muted);font-size:.85rem}
</style>`);

/**
 * The scanner's live words in the person's language, for scanner.js: each catalogue key without
 * its `sw` prefix (`swReady` is `ready`), a string with `{…}` where scanner.js puts a value in.
 */
export function scannerWords(m: ConsoleScanner): Record<string, string> {
  return Object.fromEntries(
    (Object.keys(consoleScannerEn) as Array<keyof typeof consoleScannerEn>).map((k) => [
      k.charAt(2).toLowerCase() + k.slice(3),
      m[k],
    ]),
  );
}

/**
 * The scanner: its configuration goes to scanner.js as JSON (the form token comes along: the page
 * uploads with the session, and a fresh token arrives with every sync).
 */
export function scannerPage(viewer: Viewer, info: DoorListInfo): string {
  const here = scannerHref(viewer, info);
  const back = doorBase(viewer);
  const title = `${info.list.name} · ${info.event.name}`;
  const m = t();
  const config = {
    key: `${viewer.account!.slug}/${info.event.slug}/${info.list.id}`,
    sync: `${here}/sync`,
    batch: `${here}/batch`,
    csrf: viewer.csrf,
    who: viewer.session.email,
    signIn: `/console/sign-in?next=${encodeURIComponent(here)}`,
    worker: '/console/scanner-sw.js',
    jsqr: asset('jsQR.js'),
    timezone: info.event.timezone,
    /** the tag scanner.js formats times and counts with, as the console does */
    locale: formatTag(),
  };
  return `<!doctype html>${html`<html lang="${consoleLang()}">
    <head>
      <meta charset="utf-8" />
      <meta name="viewport" content="width=device-width, initial-scale=1, viewport-fit=cover" />
      <meta name="robots" content="noindex" />
      <meta name="theme-color" content="#0f172a" />
      <title>${title} · ${m.scannerTitle}</title>
      <link rel="manifest" href="${here}/manifest.webmanifest" crossorigin="use-credentials" />
      <link rel="icon" href="${asset('icon.svg')}" type="image/svg+xml" />
      ${SCANNER_CSS}
    </head>
    <body>
      <a class="skip" href="#ref">${m.skipToTyping}</a>
      <header class="bar">
        <a href="${back}" aria-label="${m.backToDoor}">←</a>
        <h1>${info.list.name}<small>${info.event.name}</small></h1>
        <span class="net" id="net" data-state="unknown" role="status">${m.starting}</span>
      </header>
      <main class="wrap" id="main">
        <noscript><p class="note" data-kind="bad">${m.needsScript}</p></noscript>
        <div class="stats">
          <div class="stat"><b id="checked">${n(info.list.checked_in)}</b><span>${m.checkedInLower}</span></div>
          <div class="stat"><b id="total">${n(info.list.tickets)}</b><span>${m.ticketWord(info.list.tickets)}</span></div>
          <div class="stat"><b id="pending">0</b><span>${m.toUpload}</span></div>
        </div>
        <p class="note" id="notice" role="status" aria-live="polite">${m.loadingList}</p>
        <div class="camera" id="camera">
          <video id="video" muted playsinline aria-label="${m.cameraView}"></video>
          <div class="frame" hidden id="frame"></div>
          <button type="button" class="big" id="start-camera">${m.scanWithCamera}</button>
        </div>
        <form class="manual" id="manual" autocomplete="off">
          <label for="ref">${m.ticketReference}</label>
          <input id="ref" name="ref" type="text" inputmode="text" autocapitalize="characters" spellcheck="false" maxlength="60" required />
          <button type="submit" class="big">${m.checkInButton}</button>
        </form>
        <section class="recent" aria-labelledby="recent-h">
          <h2 id="recent-h">${m.recentScans}</h2>
          <ol id="recent"></ol>
        </section>
        <p class="foot">
          ${m.keptOnDevice}
          ${info.list.conflicts ? html`<a href="${here}/conflicts">${m.conflictsLink(info.list.conflicts)}</a>` : ''}
        </p>
      </main>
      <div class="result" id="result" role="alert" aria-live="assertive" data-ok="">
        <div class="mark" id="r-mark" aria-hidden="true"></div>
        <div class="verdict" id="r-verdict"></div>
        <div class="who" id="r-who"></div>
        <div class="detail" id="r-detail"></div>
        <div class="tap">${m.tapNext}</div>
      </div>
      <script type="application/json" id="scanner-config">
        ${scriptJson(config)}
      </script>
      <script type="application/json" id="scanner-words">
        ${scriptJson(scannerWords(m))}
      </script>
      <script src="${asset('scanner.js')}" defer></script>
    </body>
  </html>`}`;
}
