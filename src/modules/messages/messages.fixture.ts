import { createTestApp, type TestApp } from '../../../test/app.ts';
import { makeStaffedAccountFile } from '../../../test/console-account.ts';
import { makeAccountFile, makeEvent, makeOrder, seedAccount } from '../../../test/factories.ts';

// The messages tests' accounts, shared by the API's tests and the console's: whom a message
// reaches depends on the orders' ticket types, states and check-ins, so both write to the same.
export type MessagesAccount = Awaited<ReturnType<typeof seedAccount>>;

/** People of the account `msg`, for the console (a manager writes messages, a viewer only reads them). */
export const MESSAGES_PEOPLE = { manager: 'manager@example.org', viewer: 'viewer@example.org' } as const;

const line = (ref: string, extra: Record<string, unknown> = {}) => ({
  kind: 'tickets' as const,
  ref,
  quantity: 1,
  unit_price: 2500,
  ...extra,
});

/**
 * A test app with the account `msg`: its event `show` (General admission `ga`, VIP `vip`, the
 * door list `main`) has three paid orders, Ann's MSG-1 (ga), Bob's MSG-2 (vip) and Cleo's MSG-3
 * (ga, checked in), a pending MSG-4 and a refunded MSG-5; its event `quiet` has none. `other` is
 * another account (`msg-other`) with its event `theirs`.
 */
export async function messagesFixture(): Promise<{ t: TestApp; a: MessagesAccount; other: MessagesAccount }> {
  const t = await createTestApp();
  const a = await seedAccount(
    t.ctx,
    makeStaffedAccountFile(MESSAGES_PEOPLE, {
      slug: 'msg',
      events: [
        makeEvent({
          slug: 'show',
          timezone: 'Europe/Berlin',
          ticket_types: [
            { key: 'ga', name: 'General admission', price: 2500, capacity: 100 },
            { key: 'vip', name: 'VIP', price: 2500, capacity: 100 },
          ],
          checkin_lists: [{ key: 'main', name: 'Main door' }],
          orders: [
            makeOrder({ ref: 'MSG-1', name: 'Ann', email: 'ann@example.org', lines: [line('ga')] }),
            makeOrder({ ref: 'MSG-2', email: 'bob@example.org', lines: [line('vip')] }),
            makeOrder({ ref: 'MSG-3', email: 'cleo@example.org', lines: [line('ga', { checked_in: ['main'] })] }),
            makeOrder({ ref: 'MSG-4', status: 'pending', paid_at: undefined, payments: [], lines: [line('ga')] }),
            makeOrder({ ref: 'MSG-5', status: 'refunded', refunds: [{ amount: 2500, at: '2026-11-02T10:00:00Z' }] }),
          ],
        }),
        makeEvent({ slug: 'quiet' }),
      ],
    }),
  );
  const other = await seedAccount(t.ctx, makeAccountFile({ slug: 'msg-other', events: [makeEvent({ slug: 'theirs' })] }));
  return { t, a, other };
}
