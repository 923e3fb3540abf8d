import Stripe from 'stripe';
import type { Selectable } from 'kysely';
import type { AccountsTable } from '../../platform/db/schema.ts';
import { AppError } from '../../platform/errors.ts';
import { randomSecret } from '../../platform/secrets.ts';

/**
 * Every payment rail behind one interface. Providers are called only outside database
 * transactions: the caller writes its intent first, commits, calls out, then records the outcome.
 */
export interface ProviderPayment {
  ref: string;
  status: 'pending' | 'succeeded' | 'failed' | 'canceled';
  amount_cents: number;
  currency: string;
  /** the client secret a browser needs to confirm a card payment */
  client_secret?: string;
}

export interface ProviderFee {
  fee_cents: number;
  currency: string;
}

export interface PaymentProvider {
  readonly name: 'sandbox' | 'stripe';
  /** true when no processor is involved (the ledger records `simulated`) */
  readonly simulated: boolean;
  createPayment(input: {
    amount_cents: number;
    currency: string;
    order_ref: string;
    idempotencyKey: string;
    cardPresent?: boolean;
  }): Promise<ProviderPayment>;
  retrievePayment(ref: string): Promise<ProviderPayment>;
  /** The provider's cost of a payment, once it is established (null until then). */
  paymentFee(ref: string): Promise<ProviderFee | null>;
  refund(input: {
    payment_ref: string;
    amount_cents: number;
    idempotencyKey: string;
  }): Promise<{ ref: string; status: 'succeeded' | 'pending' | 'failed' }>;
  /** Voids a card-present (door) payment; 'voided' only when the provider confirms it. */
  voidPayment(ref: string): Promise<'voided' | 'unknown'>;
}

/**
 * A provider call that failed. `definite`: the provider answered and refused (a 4xx: nothing
 * happened). Otherwise the outcome is unknown (timeout, dropped connection, 5xx): the operation
 * may have happened, so it must be retried with the same idempotency key, never abandoned.
 */
export class ProviderError extends Error {
  constructor(
    message: string,
    readonly definite: boolean,
  ) {
    super(message);
  }
}

export const sandboxProvider: PaymentProvider = {
  name: 'sandbox',
  simulated: true,
  async createPayment(input) {
    return { ref: `sbx_${randomSecret(12)}`, status: 'succeeded', amount_cents: input.amount_cents, currency: input.currency };
  },
  async retrievePayment(ref) {
    return { ref, status: 'succeeded', amount_cents: 0, currency: '' };
  },
  async paymentFee() {
    return null;
  },
  async refund() {
    return { ref: `sbx_re_${randomSecret(12)}`, status: 'succeeded' };
  },
  async voidPayment() {
    return 'voided';
  },
};

function stripeClient(apiKey: string, apiBase: string | null): Stripe {
  const opts: Stripe.StripeConfig = { maxNetworkRetries: 0, timeout: 15_000, telemetry: false };
  if (apiBase) {
    const u = new URL(apiBase);
    opts.host = u.hostname;
    opts.protocol = u.protocol.replace(':', '') as 'http' | 'https';
    opts.port = Number(u.port || (u.protocol === 'https:' ? 443 : 80));
  }
  return new Stripe(apiKey, opts);
}

const STRIPE_STATUS: Record<string, ProviderPayment['status']> = {
  succeeded: 'succeeded',
  canceled: 'canceled',
  requires_payment_method: 'pending',
  requires_confirmation: 'pending',
  requires_action: 'pending',
  processing: 'pending',
  requires_capture: 'pending',
};

export function stripeProvider(apiKey: string, apiBase: string | null): PaymentProvider {
  const stripe = stripeClient(apiKey, apiBase);
  const wrap = async <T>(what: string, fn: () => Promise<T>): Promise<T> => {
    try {
      return await fn();
    } catch (err) {
      const status = (err as { statusCode?: number }).statusCode;
      const definite = typeof status === 'number' && status >= 400 && status < 500;
      throw new ProviderError(`stripe ${what} failed: ${(err as Error).message}`, definite);
    }
  };
  const toPayment = (pi: Stripe.PaymentIntent): ProviderPayment => ({
    ref: pi.id,
    status: STRIPE_STATUS[pi.status] ?? 'pending',
    amount_cents: pi.amount,
    currency: pi.currency,
    ...(pi.client_secret ? { client_secret: pi.client_secret } : {}),
  });
  return {
    name: 'stripe',
    simulated: false,
    createPayment: (input) =>
      wrap('payment', async () =>
        toPayment(
          await stripe.paymentIntents.create(
            {
              amount: input.amount_cents,
              currency: input.currency,
              metadata: { order_ref: input.order_ref },
              ...(input.cardPresent ? { payment_method_types: ['card_present'], capture_method: 'manual' as const } : {}),
            },
            { idempotencyKey: input.idempotencyKey },
          ),
        ),
      ),
    retrievePayment: (ref) => wrap('retrieve', async () => toPayment(await stripe.paymentIntents.retrieve(ref))),
    paymentFee: (ref) =>
      wrap('fee', async () => {
        const pi = await stripe.paymentIntents.retrieve(ref, { expand: ['latest_charge.balance_transaction'] });
        const charge = pi.latest_charge as Stripe.Charge | null;
        const bt = charge && typeof charge === 'object' ? (charge.balance_transaction as Stripe.BalanceTransaction | null) : null;
        if (!bt || typeof bt !== 'object') return null;
        return { fee_cents: bt.fee, currency: bt.currency };
      }),
    refund: (input) =>
      wrap('refund', async () => {
        const r = await stripe.refunds.create(
          { payment_intent: input.payment_ref, amount: input.amount_cents },
          { idempotencyKey: input.idempotencyKey },
        );
        return {
          ref: r.id,
          status:
            r.status === 'succeeded' ? 'succeeded' : r.status === 'failed' || r.status === 'canceled' ? 'failed' : 'pending',
        };
      }),
    voidPayment: async (ref) => {
      try {
        const pi = await stripe.paymentIntents.cancel(ref);
        return pi.status === 'canceled' ? 'voided' : 'unknown';
      } catch {
        return 'unknown';
      }
    },
  };
}

type Account = Pick<Selectable<AccountsTable>, 'payments_mode' | 'payments_provider' | 'payments_api_key' | 'payments_api_base'>;

/** The provider an account pays and refunds through, or null when payments are not configured. */
export function providerFor(account: Account, env: NodeJS.ProcessEnv = process.env): PaymentProvider | null {
  switch (account.payments_mode) {
    case 'none':
      return null;
    case 'sandbox':
      return sandboxProvider;
    case 'own_key':
      if (account.payments_provider !== 'stripe') return sandboxProvider;
      if (!account.payments_api_key) return null;
      return stripeProvider(account.payments_api_key, account.payments_api_base);
    case 'platform': {
      if (account.payments_provider !== 'stripe') return sandboxProvider;
      const key = env.STRIPE_PLATFORM_KEY;
      if (!key) return null;
      return stripeProvider(key, account.payments_api_base ?? env.STRIPE_API_BASE ?? null);
    }
  }
}

export const paymentsUnavailable = (): AppError =>
  new AppError('unavailable', 'payments_unavailable', 'Payments are not configured for this account, so no refund can be sent');
