import { joinForms } from './waitlist.view.ts';
import { html, raw, type SafeHtml } from '../../platform/http/html.ts';
import { scriptHash } from '../../platform/http/security-headers.ts';
import { minorDigits } from '../../platform/money.ts';
import type { Locale } from '../i18n/i18n.ts';
import { BROWSER_HOLD_MS } from '../orders/holds.ts';
import { renderDescription } from '../events/description.ts';
import { sessionName } from '../reports/availability.repo.ts';
import { lowStock, type Form, type ShopData } from './shop.service.ts';
import { calendarPath } from './order.view.ts';
import { SEAT_MAP_SCRIPT, seatMapSection } from './seat-map.view.ts';
import { invoiceAddressFieldset } from './invoice-address.view.ts';

const SHOP_CSS = raw(`<style>
.admit-shop fieldset{border:1px solid var(--admit-text-color-muted);border-radius:var(--admit-card-radius);margin:1rem 0;padding:.75rem 1rem}
.admit-shop legend{font-weight:600;padding:0 .25rem}
.admit-item{display:grid;grid-template-columns:minmax(0,1fr) auto;gap:.25rem .75rem;align-items:center;padding:.75rem 0;border-bottom:1px solid color-mix(in srgb,var(--admit-text-color-muted) 35%,transparent)}
.admit-item:last-child{border-bottom:0}
.admit-item label{font-weight:600}
.admit-price{display:block;font-size:1.05rem;font-variant-numeric:tabular-nums}
.admit-item select.admit-qty,.admit-item input.admit-qty{width:5rem;min-height:2.75rem;font-size:1.05rem;text-align:center}
.admit-shop label{display:block}
.admit-shop input,.admit-shop select{font:inherit;padding:.55rem;border:1px solid var(--admit-text-color-muted);border-radius:6px;background:var(--admit-text-background-color);color:var(--admit-text-color);max-width:100%;min-height:2.75rem}
.admit-shop .field{margin:.6rem 0}
.admit-shop .field input[type=text],.admit-shop .field input[type=email]{width:100%;box-sizing:border-box}
.admit-shop button[type=submit]{width:100%;font-size:1.1rem}
.admit-error{color:var(--admit-error-color);font-weight:600;display:block}
[aria-invalid=true]{border-color:var(--admit-error-color)!important;outline:2px solid var(--admit-error-color)}
.admit-errors{border:2px solid var(--admit-error-color);border-radius:var(--admit-card-radius);padding:.5rem 1rem}
.admit-soldout{font-weight:600}
.admit-description{margin:1rem 0;line-height:1.55}
.admit-description h2,.admit-description h3{margin:1.25rem 0 .4rem;font-size:1.15rem}
.admit-venue{font-style:normal;margin:1rem 0;padding:.75rem 1rem;border-left:4px solid var(--admit-accent-color);background:color-mix(in srgb,var(--admit-accent-color) 6%,transparent);border-radius:0 var(--admit-card-radius) var(--admit-card-radius) 0}
.admit-hint{font-weight:600}
.admit-preview{margin:0 0 1rem;padding:.6rem 1rem;border:2px dashed var(--admit-accent-color);border-radius:var(--admit-card-radius)}
.admit-total{display:flex;justify-content:space-between;align-items:baseline;font-size:1.15rem;margin:1rem 0 .25rem;padding:.6rem 0;border-top:2px solid var(--admit-text-color-muted)}
</style>`);

/**
 * The running total (progressive enhancement): sums quantity × unit price as quantities change
 * and formats it for the page's language. Without scripts the total is shown on the pay page.
 */
const RUNNING_TOTAL = `(()=>{const f=document.querySelector('form.admit-shop');const out=document.querySelector('[data-total]');if(!f||!out)return;
const cur=out.dataset.currency,digits=Number(out.dataset.digits),lang=out.dataset.locale||document.documentElement.lang||'en';
const fmt=new Intl.NumberFormat(lang,{style:'currency',currency:cur.toUpperCase(),minimumFractionDigits:digits,maximumFractionDigits:digits});
const o=out.querySelector('output'),note=out.querySelector('[data-total-note]'),code=f.querySelector('[name=code]');
const show=(t,n)=>{o.textContent=fmt.format(t/10**digits);if(note){note.textContent=n||'';note.hidden=!n}out.hidden=false};
const sum=()=>{let t=0;for(const i of f.querySelectorAll('[data-price]')){const q=Math.max(0,Math.floor(Number(i.value)||0));t+=q*Number(i.dataset.price)}
for(const i of f.querySelectorAll('input[data-donation]')){const v=Number(String(i.value).replace(',','.'));if(v>0&&isFinite(v))t+=Math.round(v*10**digits)}return t};
let timer=0,seq=0;
const ask=()=>{const mine=++seq;const body=new URLSearchParams(new FormData(f));
fetch(out.dataset.quote,{method:'POST',body,credentials:'same-origin'}).then(r=>r.ok?r.json():null).then(q=>{if(mine!==seq||!q)return;
if(q.state==='priced')show(q.total_cents,q.discount_cents?out.dataset.withCode.replace('{amount}',fmt.format(q.discount_cents/10**digits)):'');
else if(q.state==='refused')show(sum(),q.message)}).catch(()=>{})};
const update=()=>{show(sum(),'');if(code&&code.value.trim()&&out.dataset.quote){clearTimeout(timer);timer=setTimeout(ask,350)}};
f.addEventListener('input',update);update()})()`;

const SEATED_SCRIPT = `${RUNNING_TOTAL};${SEAT_MAP_SCRIPT}`;
// hashed once: the policy's sources for the two scripts a page can have
const HASHES = { plain: [scriptHash(RUNNING_TOTAL)], seated: [scriptHash(SEATED_SCRIPT)] } as const;

/** The event page's script: none without a form to total, the seat map's with a seat map. */
function shopScriptCode(data: { salesOpen: boolean; seated: boolean }): string | null {
  if (!data.salesOpen) return null;
  return data.seated ? SEATED_SCRIPT : RUNNING_TOTAL;
}

/**
 * The event page's script. It is the same for every visitor, so the page's policy allows it by
 * its hash (shopScriptHashes), not by a per-response nonce: the page, script included, is
 * rendered once and sent as the same bytes to many visitors.
 */
export function shopScript(data: { salesOpen: boolean; seated: boolean }): SafeHtml {
  const code = shopScriptCode(data);
  return code === null ? html`` : html`<script>${raw(code)}</script>`;
}

/** The script-src hashes that let shopScript(data) run, and nothing else inline. */
export function shopScriptHashes(data: { salesOpen: boolean; seated: boolean }): readonly string[] {
  return !data.salesOpen ? [] : data.seated ? HASHES.seated : HASHES.plain;
}

export interface ShopView {
  data: ShopData;
  action: string;
  csrf: string;
  form: Form;
  fields: Record<string, string[]>;
  message: string | null;
  loc: Locale;
  /** the page's own path and query, for the language switch */
  path: string;
  /** staff previewing the page from the console: a banner, and the form cannot be sent */
  preview?: boolean;
  /** the waiting list's join forms (sold-out types): where they post and their CSRF token */
  waitlist?: { action: string; csrf: string };
}

function err(v: ShopView, key: string): SafeHtml {
  const m = v.fields[key];
  return m ? html`<span class="admit-error" id="err-${key}">${m.join(' ')}</span>` : html``;
}

function attrs(v: ShopView, key: string): SafeHtml {
  return v.fields[key] ? raw(` aria-invalid="true" aria-describedby="err-${key}"`) : raw('');
}

/**
 * The event page: works without JavaScript; every organiser- and buyer-supplied string is
 * escaped. Its script (shopScript) follows it, kept apart: the console's preview runs without it.
 */
export function shopPage(v: ShopView): SafeHtml {
  const { data, loc } = v;
  const { m } = loc;
  const { event } = data;
  const money = (n: number | null) => (n === null ? m.notSoldInCurrency : n === 0 ? m.free : loc.money(n, data.currency));
  const val = (k: string) => v.form[k] ?? '';
  const errorList = Object.entries(v.fields);
  const description = renderDescription(event.description);
  const nothingOnSale = !data.types.length && !data.goods.length && !data.donations.length;
  return html`${SHOP_CSS}${v.preview ? html`<p class="admit-preview" role="note"><strong>${m.previewBanner}</strong></p>` : ''}
    <h1>${event.name}</h1>
    <p class="muted">
      <time datetime="${new Date(event.starts_at).toISOString()}">${loc.dateTime(event.starts_at, event.timezone)}</time>${event.venue ? html` · ${event.venue.name}` : ''}${data.channel.name ? html` · ${data.channel.name}` : ''}
      · <a href="${calendarPath(data.account.slug, event.slug)}">${m.addToCalendar}</a>
    </p>
    ${description ? html`<section class="admit-description" aria-label="${m.aboutEvent}">${description}</section>` : ''}
    ${
      event.venue
        ? html`<address class="admit-venue">
            <strong>${event.venue.name}</strong>${event.venue.address ? html`<br />${event.venue.address}` : ''}${
              event.venue.map_url && /^https?:\/\//i.test(event.venue.map_url)
                ? html`<br /><a href="${event.venue.map_url}">${m.mapAndDirections}</a>`
                : ''
            }
          </address>`
        : ''
    }
    ${
      data.salesOpen && event.sales_end_at
        ? html`<p class="admit-hint">${m.salesEnd(loc.dateTime(event.sales_end_at, event.timezone))}</p>`
        : ''
    }
    ${
      v.message || errorList.length
        ? html`<div class="admit-errors" role="alert" tabindex="-1" id="errors">
            <p><strong>${v.message ?? m.checkFields}</strong></p>
            ${
              errorList.length
                ? html`<ul>
                    ${errorList.map(([k, m]) => html`<li><a href="#f-${k}">${m.join(' ')}</a></li>`)}
                  </ul>`
                : ''
            }
          </div>`
        : ''
    }
    ${
      !data.salesOpen || nothingOnSale
        ? html`<p class="admit-status" role="status">${
            data.salesOpensAt
              ? m.salesStart(loc.dateTime(data.salesOpensAt, event.timezone))
              : !data.salesOpen
                ? m.salesEnded
                : m.nothingOnSale
          }</p>`
        : html` <form class="admit-shop" method="post" action="${v.action}" novalidate>
            <input type="hidden" name="csrf" value="${v.csrf}" />
            <input type="hidden" name="lang" value="${loc.tag}" />
            ${
              event.currencies.length > 1
                ? html`<div class="field">
                    <label for="f-currency">${m.currency}</label>
                    <select id="f-currency" name="currency">
                      ${event.currencies.map((c) => html`<option value="${c}" ${c === data.currency ? raw(' selected') : ''}>${c.toUpperCase()}</option>`)}
                    </select>
                    <noscript
                      ><small class="muted"
                        >${m.currencyNoScript(data.currency.toUpperCase())}</small
                      ></noscript
                    >
                  </div>`
                : html`<input type="hidden" name="currency" value="${data.currency}" />`
            }
            ${
              data.types.length
                ? html`<fieldset id="f-items">
              <legend>${m.tickets}</legend>
              ${err(v, 'items')}
              ${data.types.map((t) => {
                const soldOut = t.remaining === 0 || t.max <= 0;
                return html`<div class="admit-item">
                  <div>
                    <label for="f-qty_${t.id}">${t.name}</label
                    ><span class="admit-price">${money(t.price)}</span
                    >${lowStock(t.remaining) && !soldOut ? html`<span class="admit-hint">${m.onlyLeft(t.remaining ?? 0)}</span>` : ''}${err(v, `qty_${t.id}`)}
                    ${
                      t.requiresSession && !soldOut
                        ? html`<label for="f-session_${t.id}">${m.sessionFor(t.name)}</label
                            ><select id="f-session_${t.id}" name="session_${t.id}" ${attrs(v, `session_${t.id}`)}>
                              <option value="">${m.choose}</option>
                              ${t.sessions.map((s) => html`<option value="${s.id}" ${val(`session_${t.id}`) === String(s.id) ? raw(' selected') : ''}${s.remaining === 0 ? raw(' disabled') : ''}>${s.name || sessionName(new Date(s.starts_at), null, event.timezone)}${s.remaining === 0 ? ` (${m.soldOutShort})` : ''}</option>`)}</select
                            >${err(v, `session_${t.id}`)}`
                        : ''
                    }
                  </div>
                  <div>
                    ${soldOut || t.price === null ? html`<span class="admit-soldout">${soldOut ? m.soldOut : m.unavailable}${soldOut && t.waitlistMax !== null && v.waitlist && data.salesOpen ? html`<br /><a href="#wl-${String(t.id)}">${m.waitlistJoin}</a>` : ''}</span>` : quantity(v, `qty_${t.id}`, t.max, t.price)}
                  </div>
                </div>`;
              })}
            </fieldset>`
                : err(v, 'items')
            }
            ${seatMapSection(data, loc, v.form, `/e/${encodeURIComponent(data.account.slug)}/${encodeURIComponent(event.slug)}/seats.json`)}
            ${
              data.goods.length
                ? html`<fieldset>
                    <legend>${m.extras}</legend>
                    ${data.goods.map((g) => {
                      const soldOut = g.remaining === 0;
                      return html`<div class="admit-item">
                        <div>
                          <label for="f-good_${g.id}">${g.name}</label
                          ><span class="admit-price">${money(g.price)}</span
                          >${lowStock(g.remaining) && !soldOut ? html`<span class="admit-hint">${m.onlyLeft(g.remaining ?? 0)}</span>` : ''}${err(v, `good_${g.id}`)}
                        </div>
                        <div>
                          ${soldOut || g.price === null ? html`<span class="admit-soldout">${soldOut ? m.soldOut : m.unavailable}</span>` : quantity(v, `good_${g.id}`, Math.min(20, g.remaining ?? 20), g.price)}
                        </div>
                      </div>`;
                    })}
                  </fieldset>`
                : ''
            }
            ${
              data.donations.length
                ? html`<fieldset>
                    <legend>${m.donations}</legend>
                    ${data.donations.map((d) => html`<div class="field"><label for="f-donation_${d.id}">${m.donationLabel(d.name, data.currency.toUpperCase())}</label><input type="text" inputmode="decimal" id="f-donation_${d.id}" name="donation_${d.id}" value="${val(`donation_${d.id}`)}" data-donation ${attrs(v, `donation_${d.id}`)} />${err(v, `donation_${d.id}`)}</div>`)}
                  </fieldset>`
                : ''
            }
            <fieldset>
              <legend>${m.yourDetails}</legend>
              <div class="field">
                <label for="f-name">${m.name}</label
                ><input
                  type="text"
                  id="f-name"
                  name="name"
                  autocomplete="name"
                  required
                  value="${val('name')}"
                  ${attrs(v, 'name')}
                />${err(v, 'name')}
              </div>
              <div class="field">
                <label for="f-email">${m.email}</label
                ><input
                  type="email"
                  id="f-email"
                  name="email"
                  autocomplete="email"
                  required
                  value="${val('email')}"
                  ${attrs(v, 'email')}
                />${err(v, 'email')}
              </div>
              ${data.questions.filter((q) => q.scope === 'order').map((q) => html`<div class="field"><label for="f-q_${q.key}">${q.label}${q.required ? ` (${m.required})` : ''}</label><input type="text" id="f-q_${q.key}" name="q_${q.key}" value="${val(`q_${q.key}`)}" ${attrs(v, `q_${q.key}`)} />${err(v, `q_${q.key}`)}</div>`)}
              ${attendeeQuestions(v)}
              ${invoiceAddressFields(v)}
              <div class="field">
                <label for="f-code">${m.discountCode}</label
                ><input
                  type="text"
                  id="f-code"
                  name="code"
                  autocomplete="off"
                  value="${val('code')}"
                  ${attrs(v, 'code')}
                />${err(v, 'code')}
              </div>
            </fieldset>
            <p class="admit-total" data-total data-currency="${data.currency}" data-digits="${minorDigits(data.currency)}" data-locale="${loc.tag}" data-quote="${v.action.replace(/\/checkout$/, '/quote')}" data-with-code="${m.totalWithCode('{amount}')}" hidden>
              <span>${m.total}</span> <output aria-live="polite"></output> <small class="muted" data-total-note hidden></small>
            </p>
            <p class="muted">${m.holdExplained(Math.round(BROWSER_HOLD_MS / 60_000))}</p>
            <button type="submit"${v.preview ? raw(' disabled') : ''}>${allFree(data) ? m.getTickets : m.continueToPayment}</button>
          </form>`
    }${v.waitlist ? joinForms({ data, loc, ...v.waitlist, ...(v.preview ? { preview: true } : {}) }) : ''}`;
}

/** Beyond this many, a list to pick from is longer than typing the number. */
const MAX_SELECT_QUANTITY = 30;

/**
 * A quantity: a list from 0 to `max` (a phone shows its own picker; no script needed), or a number
 * field where the choice would be longer than the list should be. A value the list does not hold
 * (a refused form coming back) is kept as an extra option, so the buyer sees what they sent.
 */
function quantity(v: ShopView, key: string, max: number, price: number): SafeHtml {
  const value = v.form[key] ?? '';
  const common = html`id="f-${key}" name="${key}" class="admit-qty" data-price="${price}" ${attrs(v, key)}`;
  if (max > MAX_SELECT_QUANTITY) {
    return html`<input type="number" inputmode="numeric" min="0" max="${max}" value="${value || '0'}" ${common} />`;
  }
  const options = Array.from({ length: Math.max(0, max) + 1 }, (_, n) => String(n));
  if (value && !options.includes(value)) options.push(value);
  return html`<select ${common}>
    ${options.map((n) => html`<option value="${n}" ${n === (value || '0') ? raw('selected') : ''}>${n}</option>`)}
  </select>`;
}

/** Per-attendee questions: one block per ticket already chosen (after a first submit). */
function attendeeQuestions(v: ShopView): SafeHtml {
  const { m } = v.loc;
  const qs = v.data.questions.filter((q) => q.scope === 'attendee');
  if (!qs.length) return html``;
  const blocks: SafeHtml[] = [];
  for (const t of v.data.types) {
    const n = Math.min(20, Number(v.form[`qty_${t.id}`] ?? 0) || 0);
    for (let i = 1; i <= n; i++) {
      blocks.push(
        html`<fieldset>
          <legend>${m.ticketOf(t.name, i)}</legend>
          ${qs.map((q) => {
            const key = `a_${t.id}_${i}_${q.key}`;
            return html`<div class="field">
              <label for="f-${key}">${q.label}${q.required ? ` (${m.required})` : ''}</label
              ><input type="text" id="f-${key}" name="${key}" value="${v.form[key] ?? ''}" ${attrs(v, key)} />${err(v, key)}
            </div>`;
          })}
        </fieldset>`,
      );
    }
  }
  return blocks.length ? html`${blocks}` : html`<p class="muted">${m.attendeeQuestionsLater}</p>`;
}

/** Nothing on the page costs anything (free tickets, free goods, no donations): no payment follows. */
function allFree(data: ShopData): boolean {
  return !data.donations.length && data.types.every((t) => !t.price) && data.goods.every((g) => !g.price);
}

/** The invoice address (contract section 14), in its own group; optional unless the event requires it. */
function invoiceAddressFields(v: ShopView): SafeHtml {
  const mode = v.data.invoiceAddress;
  if (!mode) return html``;
  return invoiceAddressFieldset({
    m: v.loc.m,
    idPrefix: 'f',
    required: mode === 'required',
    values: v.form,
    problems: Object.fromEntries(Object.entries(v.fields).map(([name, problems]) => [name, problems.join(' ')])),
    hint: v.loc.m.invoiceAddressHint,
  });
}
