import type { AppContext } from '../../platform/context.ts';
import { accountOf } from './payments.service.ts';
import { providerFor, sandboxProvider } from './providers.ts';

/**
 * Voids a door sale's card-present payment before its order is canceled. 'voided' only when the
 * provider confirms the intent is off; anything else is 'unknown' and the cancel is refused.
 */
export async function voidTerminalPayment(
  ctx: AppContext,
  payment: { id: number; provider_ref: string | null; account_id: number },
): Promise<'voided' | 'unknown'> {
  const row = await ctx.db.selectFrom('payments').select(['provider']).where('id', '=', payment.id).executeTakeFirst();
  if (row?.provider === 'sandbox') return sandboxProvider.voidPayment(payment.provider_ref ?? '');
  // No intent was ever created at the processor: there is nothing that could be charged.
  if (!payment.provider_ref) return 'voided';
  const provider = providerFor(await accountOf(ctx.db, payment.account_id));
  if (!provider) return 'unknown';
  return provider.voidPayment(payment.provider_ref);
}
