import type { AppContext } from '../../platform/context.ts';

/**
 * Voids a door sale's card-present payment before its order is canceled. 'voided' only when the
 * provider proves the payment off; anything else is 'unknown' and the cancel is refused.
 */
export async function voidTerminalPayment(
  ctx: AppContext,
  payment: { id: number; provider_ref: string | null; account_id: number },
): Promise<'voided' | 'unknown'> {
  const row = await ctx.db.selectFrom('payments').select(['provider']).where('id', '=', payment.id).executeTakeFirst();
  if (row?.provider === 'sandbox') return 'voided';
  // Card-present intents at a real processor are voided by the payments module's provider.
  return 'unknown';
}
