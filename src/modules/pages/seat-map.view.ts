import { html, raw, type SafeHtml } from '../../platform/http/html.ts';
import type { Locale } from '../i18n/i18n.ts';
import type { ShopData } from './shop.service.ts';

/*
 * The seat map on a seated event's page (contract section 12). The server draws the plan as SVG
 * (seats in plan order, coloured by category); without scripts it is a picture and the quantity
 * lists above sell the best available. The script (SEAT_MAP_SCRIPT) reads the seats' states from
 * `seats.json`, greys out what is taken, and makes each seat a checkbox: chosen by pointer, touch
 * or keyboard (arrow keys move along a row and between rows, Space or Enter chooses). What is
 * chosen goes into the form's `seats_<type>` fields and sets the quantities, so the checkout gets
 * the seats. A refused checkout comes back with the same fields: the seats still free stay chosen.
 */

const CSS = raw(`<style>
.admit-seatmap{margin:1rem 0}
.admit-seatmap h2{font-size:1.15rem;margin:.25rem 0}
.admit-legend{list-style:none;padding:0;margin:.5rem 0;display:flex;flex-wrap:wrap;gap:.25rem 1rem}
.admit-legend li{display:flex;align-items:center;gap:.35rem}
.admit-legend svg{flex:none}
.admit-seatmap-frame{overflow:auto;max-height:70vh;border:1px solid var(--admit-text-color-muted);border-radius:var(--admit-card-radius);background:var(--admit-text-background-color);touch-action:pan-x pan-y}
.admit-seatmap-frame svg{display:block;width:100%;height:auto}
.admit-seatmap .seat{stroke:var(--admit-text-color);stroke-width:0;cursor:pointer}
.admit-seatmap .seat.taken{fill:#c9c9c9;cursor:not-allowed}
.admit-seatmap .seat.mine{fill:var(--admit-text-color);stroke:var(--admit-accent-color);stroke-width:4}
.admit-seatmap .seat:focus{outline:none;stroke-width:4;stroke:var(--admit-accent-color)}
.admit-seatmap .seat.mine:focus{stroke:var(--admit-accent-color);stroke-width:7}
.admit-seatmap .area-text{font:14px sans-serif;fill:#333}
.admit-seatmap-tools{display:flex;gap:.5rem;align-items:center;margin:.5rem 0}
.admit-seatmap-tools button{min-width:2.75rem;min-height:2.75rem;padding:.25rem .75rem}
.admit-seatmap [data-chosen]{font-weight:600}
</style>`);

/** One seated type's price as the legend and each seat's name say it. */
function typeOf(data: ShopData, typeId: number | null) {
  return typeId === null ? undefined : data.types.find((t) => t.id === typeId);
}

export function seatMapSection(
  data: ShopData,
  loc: Locale,
  form: Record<string, string | undefined>,
  codesUrl: string,
): SafeHtml {
  const map = data.seatMap;
  if (!map) return html``;
  const { m } = loc;
  const money = (n: number | null) => (n === null ? m.notSoldInCurrency : n === 0 ? m.free : loc.money(n, data.currency));
  const colour = new Map(map.categories.map((c) => [c.name, c.color ?? '#2f6fb0']));
  // a category is for sale here when its seats map to a ticket type this page sells
  const categoryType = new Map<string, number>();
  for (const s of map.seats) if (s.typeId !== null && !categoryType.has(s.category)) categoryType.set(s.category, s.typeId);
  const seatedTypes = data.types.filter((t) => map.seats.some((s) => s.typeId === t.id));
  const dot = (fill: string, extra = '') =>
    raw(
      `<svg width="18" height="18" viewBox="0 0 18 18" aria-hidden="true" focusable="false"><circle cx="9" cy="9" r="7" fill="${fill}"${extra}/></svg>`,
    );
  return html`${CSS}<section class="admit-seatmap" aria-labelledby="seatmap-title" data-seatmap data-codes="${codesUrl}" data-version="${map.version}">
    <h2 id="seatmap-title">${m.seatMapTitle}</h2>
    <p class="muted">${m.seatMapHint}</p>
    <ul class="admit-legend">
      ${map.categories.map((c) => {
        const t = typeOf(data, categoryType.get(c.name) ?? null);
        return html`<li data-category="${c.name}"${t ? raw(` data-t="${t.id}"`) : raw('')} data-p="${t ? money(t.price) : ''}">
          ${dot(colour.get(c.name)!)} ${c.name}${t && t.name !== c.name ? html` · ${t.name}` : ''} · ${t ? money(t.price) : m.unavailable}
        </li>`;
      })}
      <li>${dot('#c9c9c9')} ${m.seatTaken}</li>
      <li>${dot('currentColor', ' stroke="currentColor" stroke-width="3"')} ${m.seatYours}</li>
    </ul>
    <div class="admit-seatmap-tools" hidden>
      <button type="button" data-zoom="in" aria-label="${m.zoomIn}">+</button>
      <button type="button" data-zoom="out" aria-label="${m.zoomOut}">−</button>
      <span data-chosen aria-live="polite">${m.noSeatsChosen}</span>
    </div>
    <div class="admit-seatmap-frame">
      <svg viewBox="0 0 ${String(map.width)} ${String(map.height)}" role="img" aria-label="${m.seatMapTitle}" data-plan>
        ${raw(
          map.areas
            .map(
              (a) =>
                `<rect x="${a.x}" y="${a.y}" width="${a.width}" height="${a.height}" fill="${attr(a.color ?? '#e5e5e5')}"/>` +
                (a.text
                  ? `<text class="area-text" x="${a.x + a.width / 2}" y="${a.y + a.height / 2}" text-anchor="middle" dominant-baseline="middle">${text(a.text)}</text>`
                  : ''),
            )
            .join(''),
        )}
        ${raw(
          map.seats
            .map(
              (s) =>
                `<circle class="seat" cx="${s.x}" cy="${s.y}" r="${s.r}" fill="${attr(colour.get(s.category) ?? '#2f6fb0')}" data-g="${attr(s.guid)}" data-r="${s.row}"${s.typeId !== null ? ` data-t="${s.typeId}"` : ''} data-l="${attr(`${s.label}, ${s.category}`)}"/>`,
            )
            .join(''),
        )}
      </svg>
    </div>
    ${seatedTypes.map((t) => html`<input type="hidden" name="seats_${t.id}" value="${form[`seats_${t.id}`] ?? ''}" data-seats-for="${t.id}" />`)}
    ${seatMapWords(loc)}
  </section>`;
}

/** Text for an attribute value: the seats' thousands of attributes are joined as plain strings. */
function attr(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}
function text(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/**
 * The map's script. Words it shows come from the section's own attributes and the page's
 * language; it runs under the response's nonce.
 */
export const SEAT_MAP_SCRIPT = `(()=>{const box=document.querySelector('[data-seatmap]');if(!box)return;
const svg=box.querySelector('svg[data-plan]'),form=box.closest('form'),tools=box.querySelector('.admit-seatmap-tools'),said=box.querySelector('[data-chosen]');
const seats=[...svg.querySelectorAll('circle.seat')],byGuid=new Map(seats.map(s=>[s.dataset.g,s]));
const price=new Map([...box.querySelectorAll('.admit-legend li[data-t]')].map(li=>[li.dataset.t,li.dataset.p]));
const rows=[];for(const s of seats){const r=Number(s.dataset.r);(rows[r]??=[]).push(s)}
const words=JSON.parse(box.querySelector('script[type="application/json"]').textContent);
const fields=new Map([...form.querySelectorAll('input[data-seats-for]')].map(i=>[i.dataset.seatsFor,i]));
const chosen=new Map();for(const [t,i] of fields)for(const g of i.value.split(',').filter(Boolean))chosen.set(g,t);
let taken=new Set(),current=null,zoom=1;
svg.setAttribute('role','group');
const isFree=s=>s.dataset.t&&price.has(s.dataset.t)&&!taken.has(s.dataset.g);
const qty=t=>form.querySelector('[name="qty_'+t+'"]');
const maxOf=t=>{const q=qty(t);if(!q)return 0;if(q.tagName==='SELECT')return Math.max(...[...q.options].map(o=>Number(o.value)||0));return Number(q.max)||20};
function paint(){for(const s of seats){const g=s.dataset.g,mine=chosen.has(g),free=isFree(s);
s.classList.toggle('taken',!free&&!mine);s.classList.toggle('mine',mine);
if(s.dataset.t&&price.has(s.dataset.t)){s.setAttribute('role','checkbox');s.setAttribute('aria-checked',String(mine));
s.setAttribute('aria-label',s.dataset.l+', '+price.get(s.dataset.t)+(free||mine?'':', '+words.taken));s.setAttribute('aria-disabled',String(!free&&!mine))}}
const list=[...chosen.keys()].map(g=>byGuid.get(g)?.dataset.l.split(', ').slice(0,2).join(', ')).filter(Boolean);
said.textContent=list.length?words.chosen+' '+list.join('; '):words.none}
function write(){for(const [t,i] of fields){const mine=[...chosen].filter(([,x])=>x===t).map(([g])=>g);i.value=mine.join(',');
const q=qty(t);if(q&&(mine.length||i.dataset.touched)){if(q.tagName==='SELECT'&&![...q.options].some(o=>o.value===String(mine.length))){const o=document.createElement('option');o.value=o.textContent=String(mine.length);q.append(o)}q.value=String(mine.length);i.dataset.touched='1'}}
form.dispatchEvent(new Event('input',{bubbles:true}));paint()}
function toggle(s){if(!s||!s.dataset.t)return;const g=s.dataset.g,t=s.dataset.t;
if(chosen.has(g)){chosen.delete(g)}else{if(!isFree(s))return;const n=[...chosen.values()].filter(x=>x===t).length;if(n>=maxOf(t)){said.textContent=words.max;return}chosen.set(g,t)}write()}
function mark(s){if(!s)return;if(current)current.setAttribute('tabindex','-1');current=s;s.setAttribute('tabindex','0')}
function focus(s){if(!s)return;mark(s);s.focus()}
function near(row,x){if(!row)return null;return row.reduce((b,s)=>Math.abs(s.cx.baseVal.value-x)<Math.abs(b.cx.baseVal.value-x)?s:b)}
svg.addEventListener('click',e=>{const s=e.target.closest('circle.seat');if(s){focus(s);toggle(s)}});
svg.addEventListener('keydown',e=>{const s=e.target.closest('circle.seat');if(!s)return;const r=Number(s.dataset.r),row=rows[r],i=row.indexOf(s);let next=null;
if(e.key==='ArrowRight')next=row[i+1];else if(e.key==='ArrowLeft')next=row[i-1];
else if(e.key==='ArrowDown'){for(let k=r+1;k<rows.length&&!next;k++)next=near(rows[k],s.cx.baseVal.value)}
else if(e.key==='ArrowUp'){for(let k=r-1;k>=0&&!next;k--)next=near(rows[k],s.cx.baseVal.value)}
else if(e.key===' '||e.key==='Enter'){e.preventDefault();toggle(s);return}else return;
e.preventDefault();if(next)focus(next)});
box.querySelectorAll('[data-zoom]').forEach(b=>b.addEventListener('click',()=>{zoom=Math.min(6,Math.max(1,zoom*(b.dataset.zoom==='in'?1.5:1/1.5)));svg.style.width=(zoom*100)+'%'}));
for(const s of seats)s.setAttribute('tabindex','-1');
async function load(){try{const r=await fetch(box.dataset.codes,{headers:{accept:'application/json'}});if(!r.ok)return;const j=await r.json();
if(j.codes.length!==seats.length)return;taken=new Set();for(let i=0;i<seats.length;i++)if(j.codes[i]!=='a')taken.add(seats[i].dataset.g);
for(const g of [...chosen.keys()])if(taken.has(g)&&!box.dataset.loaded)chosen.delete(g);box.dataset.loaded='1';
if(current&&!isFree(current)&&!chosen.has(current.dataset.g)&&document.activeElement!==current)mark(seats.find(isFree)??current);write()}catch{}}
form.addEventListener('change',e=>{const m=/^qty_(\\d+)$/.exec(e.target.name||'');if(!e.isTrusted||!m||!fields.has(m[1]))return;
for(const [g,t] of [...chosen])if(t===m[1])chosen.delete(g);const i=fields.get(m[1]);i.value='';delete i.dataset.touched;paint()});
tools.hidden=false;paint();mark(seats.find(isFree)??seats.find(s=>s.dataset.t&&price.has(s.dataset.t))??seats[0]);
load();setInterval(load,15000)})()`;

/** The words the script shows, in the page's language, as a JSON data island (not run). */
export function seatMapWords(loc: Locale): SafeHtml {
  const { m } = loc;
  const words = JSON.stringify({ chosen: m.seatsChosen, none: m.noSeatsChosen, taken: m.seatTaken, max: m.seatsAtMost });
  return raw(`<script type="application/json">${words.replace(/</g, '\\u003c')}</script>`);
}
