import { html, raw, type SafeHtml } from '../../platform/http/html.ts';
import type { Locale } from '../i18n/i18n.ts';
import type { OrderDocument } from '../orders/order-document.repo.ts';
import type { SelfServiceRights } from '../orders/self-service.ts';
import { BUYER_FORM_CSS } from './buyer-form.view.ts';

/**
 * Self-service on the order page (contract section 15): under each ticket, "Change the name"
 * and "Pass this ticket on", folded away; below the tickets, "Cancel tickets" with what each
 * would refund. A refused form comes back open, with its problems marked and what was typed kept.
 */

type Ticket = OrderDocument['tickets'][number];

export interface SelfServiceRefusal {
  /** which form: a ticket's `attendee` or `transfer`, or `cancel` */
  form: 'attendee' | 'transfer' | 'cancel';
  ref?: string;
  values: Record<string, string | string[] | undefined>;
  fields: Record<string, string>;
}

export interface SelfServiceView {
  secret: string;
  csrf: string;
  loc: Locale;
  rights: SelfServiceRights;
  timezone: string;
  refused?: SelfServiceRefusal;
}

export const SELF_SERVICE_CSS = raw(`<style>
.admit-ticket .admit-form{text-align:left;margin:.75rem 0 0;padding:.5rem .75rem}
.admit-ticket .admit-form summary h3{display:inline;font-size:1rem;margin:0}
.admit-cancel li{list-style:none;margin:.35rem 0}
.admit-cancel ul{padding:0}
.admit-check{display:flex;gap:.6rem;align-items:flex-start;font-weight:400!important}
.admit-check input{width:1.35rem!important;min-height:1.35rem!important;flex:none;margin:.15rem 0 0}
.admit-passed{font-style:italic}
</style>`);

const open = (on: boolean) => raw(on ? ' open' : '');

function textField(
  id: string,
  name: string,
  label: string,
  value: string,
  problem: string | undefined,
  opts: { auto: string; type?: string; required?: boolean },
) {
  return html`<div class="field">
    <label for="${id}">${label}</label
    ><input type="${opts.type ?? 'text'}" id="${id}" name="${name}" autocomplete="${opts.auto}" maxlength="200"${opts.required ? raw(' required') : raw('')} value="${value}"${problem ? raw(` aria-invalid="true" aria-describedby="${id}-err"`) : raw('')} />${problem ? html`<span class="admit-error" id="${id}-err">${problem}</span>` : ''}
  </div>`;
}

/** The forms under one ticket card, or nothing when none applies. */
export function ticketActions(t: Ticket, v: SelfServiceView): SafeHtml {
  if (t.status !== 'valid') return html``;
  const { m } = v.loc;
  const mine = (form: SelfServiceRefusal['form']) =>
    v.refused?.form === form && v.refused.ref === t.ref ? v.refused : undefined;
  const base = `/o/${v.secret}/tickets/${encodeURIComponent(t.ref)}`;
  const str = (r: SelfServiceRefusal | undefined, k: string, fallback: string) => {
    const x = r?.values[k];
    return typeof x === 'string' ? x : fallback;
  };
  const parts: SafeHtml[] = [];
  if (v.rights.edit && !t.transferred) {
    const r = mine('attendee');
    parts.push(html`<details class="admit-form"${open(Boolean(r))}>
      <summary><h3>${m.changeName}</h3></summary>
      <form method="post" action="${base}/attendee">
        <input type="hidden" name="csrf" value="${v.csrf}" />
        ${textField(`an-${t.ref}`, 'name', m.attendeeName, str(r, 'name', t.attendee_name ?? ''), r?.fields.name, { auto: 'name', required: true })}
        ${textField(`ae-${t.ref}`, 'email', m.attendeeEmail, str(r, 'email', t.attendee_email ?? ''), r?.fields.email, { auto: 'email', type: 'email' })}
        <button type="submit">${m.saveName}</button>
      </form>
    </details>`);
  }
  if (v.rights.transfer) {
    const r = mine('transfer');
    parts.push(html`<details class="admit-form"${open(Boolean(r))}>
      <summary><h3>${m.passOn}</h3></summary>
      <p class="muted">${m.passOnHint}</p>
      <form method="post" action="${base}/transfer">
        <input type="hidden" name="csrf" value="${v.csrf}" />
        ${textField(`tn-${t.ref}`, 'name', m.theirName, str(r, 'name', ''), r?.fields.name, { auto: 'off', required: true })}
        ${textField(`te-${t.ref}`, 'email', m.theirEmail, str(r, 'email', ''), r?.fields.email, { auto: 'off', type: 'email', required: true })}
        <button type="submit">${m.passOnButton}</button>
      </form>
    </details>`);
  }
  return html`${parts}`;
}

/** "Cancel tickets": each valid ticket with its refund, a box to confirm, one button. */
export function cancelSection(
  doc: OrderDocument,
  v: SelfServiceView,
  quote: (ref: string) => { price: number; refund: number },
  key: string,
): SafeHtml {
  const valid = doc.tickets.filter((t) => t.status === 'valid');
  if (!v.rights.cancel || !valid.length) return html``;
  const { m } = v.loc;
  const r = v.refused?.form === 'cancel' ? v.refused : undefined;
  const picked = new Set([r?.values.tickets ?? []].flat());
  const money = (n: number) => v.loc.money(n, doc.order.currency);
  return html`<section class="admit-form admit-cancel" aria-labelledby="cancel-title">
    <details${open(Boolean(r))}>
      <summary><h2 id="cancel-title">${m.cancelTitle}</h2></summary>
      <p class="muted">
        ${m.cancelHint(v.loc.dateTime(v.rights.cancelUntil!, v.timezone))}${v.rights.feePercent ? html` ${m.cancelFee(String(v.rights.feePercent))}` : ''}
      </p>
      ${r ? html`<p class="admit-error" role="alert">${m.checkFields}</p>` : ''}
      <form method="post" action="/o/${v.secret}/cancel">
        <input type="hidden" name="csrf" value="${v.csrf}" />
        <input type="hidden" name="key" value="${key}" />
        <fieldset${r?.fields.tickets ? raw(' aria-describedby="cancel-tickets-err"') : raw('')}>
          <legend>${m.cancelChoose}</legend>
          ${r?.fields.tickets ? html`<span class="admit-error" id="cancel-tickets-err">${r.fields.tickets}</span>` : ''}
          <ul>
            ${valid.map((t) => {
              const q = quote(t.ref);
              return html`<li>
                <label class="admit-check"
                  ><input type="checkbox" name="tickets" value="${t.ref}"${picked.has(t.ref) ? raw(' checked') : raw('')} /><span
                    >${t.type_name} · ${t.attendee_name ?? doc.order.name ?? ''} <small class="muted">${t.ref}</small><br /><small
                      >${m.cancelRefundOf(money(q.price), money(q.refund))}</small
                    ></span
                  ></label
                >
              </li>`;
            })}
          </ul>
        </fieldset>
        <div class="field">
          <label class="admit-check"
            ><input type="checkbox" name="confirm" value="yes"${r?.fields.confirm ? raw(' aria-invalid="true" aria-describedby="cancel-confirm-err"') : raw('')} /><span
              >${m.cancelUnderstand}</span
            ></label
          >${r?.fields.confirm ? html`<span class="admit-error" id="cancel-confirm-err">${r.fields.confirm}</span>` : ''}
        </div>
        <button type="submit">${m.cancelButton}</button>
      </form>
    </details>
  </section>`;
}

export { BUYER_FORM_CSS };
