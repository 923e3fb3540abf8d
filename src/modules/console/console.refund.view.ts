import { plainList } from './plain-words.ts';
import { money } from './formats.ts';
import { html, raw } from '../../platform/http/html.ts';
import type { DeskOrderDetail } from '../orders/order-desk.service.ts';
import type { Viewer } from './console.http.ts';
import { consolePage, field, hiddenCsrf, type FieldErrors, type Flash } from './console-layout.view.ts';
import { eventBase } from './console.order-desk.view.ts';
import { t } from './console-lang.ts';

/**
 * The refund form: the whole balance, chosen tickets (void, their places back on sale) or an
 * amount only (the tickets stay valid), with a reason kept in the order's activity. Money moves,
 * so the choice is made here, on its own page, never by one click on the order.
 */

export type RefundScope = 'all' | 'tickets' | 'amount';

export interface RefundForm {
  scope: RefundScope;
  tickets: string[];
  amount: string;
  reason: string;
}

export interface RefundPageOptions {
  /** makes the form's submissions one refund however often it is sent */
  nonce: string;
  form?: RefundForm;
  errors?: FieldErrors;
  flash?: Flash | null;
}

/** How the order was paid, said once: "card", "sandbox (no money moves)". */
function throughWhat(payments: DeskOrderDetail['payments']): string {
  const p = payments.find((x) => x.status === 'succeeded' && x.amount_cents > 0);
  const m = t();
  if (!p) return m.throughPayment;
  if (p.simulated) return m.throughTestPayment;
  return m.throughRail(p.rail, p.provider !== p.rail ? ` (${p.provider})` : '');
}

export function refundPage(viewer: Viewer, eventSlug: string, d: DeskOrderDetail, opts: RefundPageOptions): string {
  const { order } = d;
  const here = `${eventBase(viewer, eventSlug)}/orders/${encodeURIComponent(order.ref)}`;
  const amount = (c: number) => money(c, order.currency);
  const balance = order.total_cents - order.refunded_cents;
  const f: RefundForm = opts.form ?? { scope: 'all', tickets: [], amount: '', reason: '' };
  const errs = opts.errors ?? {};
  const valid = d.tickets.filter((tk) => tk.status === 'valid');
  const m = t();
  const radio = (value: RefundScope, label: string, hint: string) =>
    html`<div class="field">
      <label class="check" for="scope-${value}"
        ><input type="radio" id="scope-${value}" name="scope" value="${value}" aria-describedby="scope-${value}-hint" ${
          f.scope === value ? raw('checked') : ''
        } />
        ${label}</label
      >
      <p class="hint" id="scope-${value}-hint">${hint}</p>
    </div>`;
  const body = html`<p><a href="${here}">${m.backToOrder(order.ref)}</a></p>
    <div class="card">
      <dl class="facts">
        <div><dt>${m.buyer}</dt><dd>${order.name ?? order.email ?? '—'}</dd></div>
        <div><dt>${m.paid}</dt><dd>${amount(order.total_cents)}</dd></div>
        ${order.refunded_cents ? html`<div><dt>${m.refundedSoFar}</dt><dd>${amount(order.refunded_cents)}</dd></div>` : ''}
        <div><dt>${m.leftToRefund}</dt><dd><strong>${amount(balance)}</strong></dd></div>
      </dl>
      <p>${m.moneyGoesBack(throughWhat(d.payments))}</p>
    </div>
    <form method="post" action="${here}/refund" class="card" novalidate>
      ${hiddenCsrf(viewer.csrf)}
      <input type="hidden" name="nonce" value="${opts.nonce}" />
      <fieldset class="plain-fieldset">
        <legend>${m.whatToRefund}</legend>
        ${radio('all', m.everythingLeft(amount(balance)), m.everythingHint)}
        ${radio('tickets', m.chosenTickets, m.chosenHint)}
        ${radio('amount', m.amountOnly, m.amountOnlyHint)}
      </fieldset>
      <fieldset class="plain-fieldset" ${errs.tickets ? raw('aria-describedby="tickets-err"') : ''}>
        <legend>${m.tickets}</legend>
        ${
          valid.length
            ? valid.map(
                (tk) =>
                  html`<div class="field"><label class="check" for="t-${tk.ref}"
                    ><input type="checkbox" id="t-${tk.ref}" name="tickets" value="${tk.ref}" ${f.tickets.includes(tk.ref) ? raw('checked') : ''} />
                    ${tk.ref} · ${tk.ticket_type}${tk.attendee_name ? ` · ${tk.attendee_name}` : ''} · ${amount(tk.price_cents)}</label
                  ></div>`,
              )
            : html`<p class="muted">${m.noValidTickets}</p>`
        }
        ${errs.tickets ? html`<p class="error" id="tickets-err">${plainList(errs.tickets)}</p>` : ''}
      </fieldset>
      ${field({
        name: 'amount',
        label: m.amountIn(order.currency.toUpperCase()),
        value: f.amount,
        errors: errs,
        hint: m.amountHint(amount(balance)),
        attrs: 'inputmode="decimal" autocomplete="off"',
      })}
      <div class="field">
        <label for="f-reason">${m.reason} <span class="muted">${m.optional}</span></label>
        <textarea id="f-reason" name="reason" rows="2" maxlength="500" aria-describedby="${errs.reason ? 'f-reason-err' : 'f-reason-hint'}" ${
          errs.reason ? raw('aria-invalid="true"') : ''
        }>${f.reason}</textarea>
        ${
          errs.reason
            ? html`<p class="error" id="f-reason-err">${plainList(errs.reason)}</p>`
            : html`<p class="hint" id="f-reason-hint">${m.refundReasonHint}</p>`
        }
      </div>
      <div class="actions">
        <button type="submit" class="danger-solid">${m.refundButton}</button>
        <a href="${here}">${m.keepOrder}</a>
      </div>
    </form>`;
  return consolePage({ title: m.refundTitle(order.ref), viewer, active: 'events', flash: opts.flash, body });
}
