import type { AppContext } from '../../platform/context.ts';
import { AppError } from '../../platform/errors.ts';
import { loadOrderDocument, type OrderDocument } from '../orders/order-document.repo.ts';
import {
  accountOf,
  confirmCardPayment,
  openCardPayment,
  recordPayment,
  type PaymentOutcome,
} from '../payments/payments.service.ts';
import { providerFor, sandboxProvider } from '../payments/providers.ts';
import { en, type Messages } from '../i18n/messages.en.ts';

/** What the pay page can do for an order right now. */
export type PayState = 'payable' | 'paid' | 'expired' | 'canceled' | 'refunded' | 'unavailable';

export function payState(ctx: AppContext, doc: OrderDocument): PayState {
  const { order } = doc;
  if (order.status === 'paid') return 'paid';
  if (order.status === 'refunded') return 'refunded';
  if (order.status === 'canceled') return 'canceled';
  if (order.expires_at && new Date(order.expires_at).getTime() <= ctx.clock.now().getTime()) return 'expired';
  if (order.payments_mode === 'none') return 'unavailable';
  return 'payable';
}

export async function loadBySecret(ctx: AppContext, secret: string): Promise<OrderDocument> {
  // Secrets are base64url; anything else cannot match and is not worth a query.
  const doc = /^[A-Za-z0-9_-]{16,64}$/.test(secret) ? await loadOrderDocument(ctx.db, { secret }) : null;
  if (!doc)
    throw new AppError('not_found', 'not_found', 'This link is not valid. It may have been mistyped or replaced by a newer one.');
  return doc;
}

/**
 * The sandbox's Pay button: a simulated payment of the whole total, recorded like a real one.
 * Paying an order that is not payable changes nothing.
 */
export async function paySandbox(ctx: AppContext, doc: OrderDocument): Promise<PaymentOutcome> {
  const state = payState(ctx, doc);
  if (state !== 'payable') throw new AppError('unprocessable', `order_${state}`, notPayableMessage(state));
  const account = await accountOf(ctx.db, doc.order.account_id);
  const provider = providerFor(account);
  if (provider !== sandboxProvider)
    throw new AppError('unprocessable', 'not_sandbox', 'This order is paid by card, not in the sandbox');
  const payment = await provider.createPayment({
    amount_cents: doc.order.total_cents,
    currency: doc.order.currency,
    order_ref: doc.order.ref,
    idempotencyKey: `pay-${doc.order.id}`,
  });
  return recordPayment(ctx, doc.order, { rail: 'sandbox', provider, ref: payment.ref, amount_cents: doc.order.total_cents });
}

/** Card payments: open (or reuse) the PaymentIntent whose client secret the page confirms. */
export async function startCardPayment(ctx: AppContext, doc: OrderDocument): Promise<{ client_secret?: string }> {
  const account = await accountOf(ctx.db, doc.order.account_id);
  const provider = providerFor(account);
  if (!provider) throw new AppError('unavailable', 'payments_unavailable', 'Payments are not available for this order right now');
  return openCardPayment(ctx, doc.order, provider);
}

export async function confirmCard(ctx: AppContext, doc: OrderDocument): Promise<PaymentOutcome | 'pending'> {
  return confirmCardPayment(ctx, doc.order);
}

export function notPayableMessage(state: PayState, m: Messages = en): string {
  switch (state) {
    case 'paid':
      return m.alreadyPaid;
    case 'expired':
      return m.holdEnded;
    case 'canceled':
      return m.orderCanceled;
    case 'refunded':
      return m.orderRefunded;
    case 'unavailable':
      return m.paymentsUnavailable;
    default:
      return '';
  }
}
