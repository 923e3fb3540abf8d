import { plainList } from './plain-words.ts';
import { money } from './formats.ts';
import { html, raw } from '../../platform/http/html.ts';
import type { DeskOrderDetail } from '../orders/order-desk.service.ts';
import type { Viewer } from './console.http.ts';
import { consolePage, field, hiddenCsrf, type FieldErrors, type Flash } from './console-layout.view.ts';
import { eventBase } from './console.order-desk.view.ts';

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
  if (!p) return 'the order’s payment';
  if (p.simulated) return 'the order’s test payment (sandbox: no real money moves)';
  return `the order’s ${p.rail} payment${p.provider !== p.rail ? ` (${p.provider})` : ''}`;
}

export function refundPage(viewer: Viewer, eventSlug: string, d: DeskOrderDetail, opts: RefundPageOptions): string {
  const { order } = d;
  const here = `${eventBase(viewer, eventSlug)}/orders/${encodeURIComponent(order.ref)}`;
  const amount = (c: number) => money(c, order.currency);
  const balance = order.total_cents - order.refunded_cents;
  const f: RefundForm = opts.form ?? { scope: 'all', tickets: [], amount: '', reason: '' };
  const errs = opts.errors ?? {};
  const valid = d.tickets.filter((t) => t.status === 'valid');
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
  const body = html`<p><a href="${here}">← Order ${order.ref}</a></p>
    <div class="card">
      <dl class="facts">
        <div><dt>Buyer</dt><dd>${order.name ?? order.email ?? '—'}</dd></div>
        <div><dt>Paid</dt><dd>${amount(order.total_cents)}</dd></div>
        ${order.refunded_cents ? html`<div><dt>Refunded so far</dt><dd>${amount(order.refunded_cents)}</dd></div>` : ''}
        <div><dt>Left to refund</dt><dd><strong>${amount(balance)}</strong></dd></div>
      </dl>
      <p>The money goes back through ${throughWhat(d.payments)}. The buyer is told by mail.</p>
    </div>
    <form method="post" action="${here}/refund" class="card" novalidate>
      ${hiddenCsrf(viewer.csrf)}
      <input type="hidden" name="nonce" value="${opts.nonce}" />
      <fieldset class="plain-fieldset">
        <legend>What to refund</legend>
        ${radio('all', `Everything left: ${amount(balance)}`, 'All tickets become void and their places go back on sale.')}
        ${radio(
          'tickets',
          'Chosen tickets',
          'They become void and their places go back on sale; the other tickets stay valid. The amount is their price unless you enter one.',
        )}
        ${radio('amount', 'An amount only', 'The tickets stay valid (a goodwill refund, a price correction).')}
      </fieldset>
      <fieldset class="plain-fieldset" ${errs.tickets ? raw('aria-describedby="tickets-err"') : ''}>
        <legend>Tickets</legend>
        ${
          valid.length
            ? valid.map(
                (t) =>
                  html`<div class="field"><label class="check" for="t-${t.ref}"
                    ><input type="checkbox" id="t-${t.ref}" name="tickets" value="${t.ref}" ${f.tickets.includes(t.ref) ? raw('checked') : ''} />
                    ${t.ref} · ${t.ticket_type}${t.attendee_name ? ` · ${t.attendee_name}` : ''} · ${amount(t.price_cents)}</label
                  ></div>`,
              )
            : html`<p class="muted">No valid tickets left on this order.</p>`
        }
        ${errs.tickets ? html`<p class="error" id="tickets-err">${plainList(errs.tickets)}</p>` : ''}
      </fieldset>
      ${field({
        name: 'amount',
        label: `Amount (${order.currency.toUpperCase()})`,
        value: f.amount,
        errors: errs,
        hint: `At most ${amount(balance)}. For chosen tickets, leave it empty to refund their price.`,
        attrs: 'inputmode="decimal" autocomplete="off"',
      })}
      <div class="field">
        <label for="f-reason">Reason <span class="muted">(optional)</span></label>
        <textarea id="f-reason" name="reason" rows="2" maxlength="500" aria-describedby="${errs.reason ? 'f-reason-err' : 'f-reason-hint'}" ${
          errs.reason ? raw('aria-invalid="true"') : ''
        }>${f.reason}</textarea>
        ${
          errs.reason
            ? html`<p class="error" id="f-reason-err">${plainList(errs.reason)}</p>`
            : html`<p class="hint" id="f-reason-hint">Shown in the order's activity with your name; not sent to the buyer.</p>`
        }
      </div>
      <div class="actions">
        <button type="submit" class="danger-solid">Refund</button>
        <a href="${here}">Keep the order as it is</a>
      </div>
    </form>`;
  return consolePage({ title: `Refund order ${order.ref}`, viewer, active: 'events', flash: opts.flash, body });
}
