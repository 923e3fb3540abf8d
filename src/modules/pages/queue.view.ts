import { html, raw, type SafeHtml } from '../../platform/http/html.ts';
import type { Locale } from '../i18n/i18n.ts';

/**
 * The queue page in front of an on-sale (contract section 13): the waiting room before the
 * start, then the visitor's place, how many are ahead and about how long. It refreshes itself:
 * a script polls the place every 10 s (and reloads into the shop when the turn comes); without
 * script, a refresh in <noscript> reloads the page every 10 s.
 */
export interface QueueView {
  event: string;
  timezone: string;
  start: Date;
  place: number | null;
  ahead: number;
  waitSeconds: number;
  statusUrl: string;
  nonce: string;
  loc: Locale;
}

const CSS = raw(`<style>
.admit-queue{text-align:center;max-width:32rem;margin:0 auto}
.admit-queue h1{font-size:1.6rem;margin:.5rem 0 1rem}
.admit-queue .place{font-size:3.5rem;font-weight:800;line-height:1.1;margin:.25rem 0;font-variant-numeric:tabular-nums}
.admit-queue .place[data-q="opens"]{font-size:2.25rem}
.admit-queue .label{font-weight:700;text-transform:uppercase;letter-spacing:.05em;font-size:.85rem;margin:1.25rem 0 0}
.admit-queue .facts{display:flex;flex-wrap:wrap;justify-content:center;gap:.5rem 1.5rem;margin:.75rem 0 1.25rem;font-weight:600}
.admit-queue progress{width:100%;height:.75rem;accent-color:var(--admit-accent-color)}
</style>`);

export function duration(seconds: number, loc: Locale): string {
  if (seconds < 90) return loc.m.seconds(Math.max(1, Math.round(seconds)));
  return loc.m.minutes(Math.round(seconds / 60));
}

export function queuePage(v: QueueView): SafeHtml {
  const { m } = v.loc;
  const fmt = (n: number) => new Intl.NumberFormat(v.loc.tag).format(n);
  const words = { minutes: [m.minutes(1), m.minutes(2)], seconds: [m.seconds(1), m.seconds(2)] };
  const body =
    v.place === null
      ? html`<p class="admit-lead">${m.waitingRoom(v.loc.dateTime(v.start, v.timezone))}</p>
          <p>${m.waitingRoomHint}</p>
          <p class="label">${m.opensIn}</p>
          <p class="place" data-q="opens">${duration(v.waitSeconds, v.loc)}</p>`
      : html`<p class="label" id="q-label">${m.yourPlace}</p>
          <p class="place" data-q="place" aria-labelledby="q-label">${fmt(v.place)}</p>
          <p class="facts">
            <span data-q="ahead">${m.aheadOfYou(fmt(v.ahead))}</span
            ><span data-q="wait">${m.aboutWait(duration(v.waitSeconds, v.loc))}</span>
          </p>`;
  return html`${CSS}<section class="admit-queue" aria-live="polite">
      <h1>${v.event}</h1>
      ${body}
      <p class="muted">${m.queueHint}</p>
    </section>
    <noscript><meta http-equiv="refresh" content="10" /></noscript>
    <script type="application/json" id="admit-queue-words">
      ${raw(JSON.stringify({ url: v.statusUrl, ahead: m.aheadOfYou('{n}'), wait: m.aboutWait('{t}'), words }).replace(/</g, '\\u003c'))}
    </script>
    <script nonce="${v.nonce}">
      ${raw(QUEUE_SCRIPT)}
    </script>`;
}

/** Polls the place every 10 s; at the turn (or when the queue is over) reloads into the shop. */
const QUEUE_SCRIPT = `(function(){
var cfg=JSON.parse(document.getElementById('admit-queue-words').textContent);
var lang=document.documentElement.lang||'en';
function fmt(n){return new Intl.NumberFormat(lang).format(n)}
function dur(s){var w=cfg.words;if(s<90){s=Math.max(1,Math.round(s));return s===1?w.seconds[0]:w.seconds[1].replace(/\\d+/,s)}
var n=Math.round(s/60);return n===1?w.minutes[0]:w.minutes[1].replace(/\\d+/,n)}
function set(k,t){var e=document.querySelector('[data-q="'+k+'"]');if(e)e.textContent=t}
function poll(){fetch(cfg.url,{credentials:'same-origin',cache:'no-store'}).then(function(r){return r.json()}).then(function(s){
if(s.state==='admitted'||s.state==='open'||s.state==='unknown'){location.reload();return}
if(s.state==='before_start'){if(s.wait_seconds<=0){location.reload();return}set('opens',dur(s.wait_seconds))}
if(s.state==='waiting'){set('place',fmt(s.place));set('ahead',cfg.ahead.replace('{n}',fmt(s.ahead)));set('wait',cfg.wait.replace('{t}',dur(s.wait_seconds)))}
}).catch(function(){}).then(function(){setTimeout(poll,10000)})}
setTimeout(poll,10000)})();`;
