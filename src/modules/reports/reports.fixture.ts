import { createTestApp, type TestApp } from '../../../test/app.ts';
import { makeAccountFile, makeEvent, makeOrder, seedAccount } from '../../../test/factories.ts';

// The reports tests' account: one event with orders across months, currencies, rails,
// refunds, codes, audiences and sessions, shared by the income and the report tests.
export type ReportsAccount = Awaited<ReturnType<typeof seedAccount>>;
const ga = (quantity: number, unit = 2500) => ({
  kind: 'tickets' as const,
  ref: 'ga',
  quantity,
  unit_price: unit,
  tax_rate_bp: 700,
});
const sbx = (amount: number, at: string, extra: object = {}) => [
  { rail: 'sandbox' as const, amount, at, fee: 0, provider_ref: `sbx_${at}`, ...extra },
];

export async function reportsFixture(): Promise<{ t: TestApp; a: ReportsAccount }> {
  const t = await createTestApp({ now: '2026-11-22T12:00:00Z' });
  const a = await seedAccount(
    t.ctx,
    makeAccountFile({
      events: [
        makeEvent({
          slug: 'berlin',
          currency: 'eur',
          currencies: ['eur', 'gbp'],
          fx_rates: { gbp: 1.17 },
          timezone: 'Europe/Berlin',
          ticket_types: [
            { key: 'ga', name: 'General', price: 2500, prices: { gbp: 2200 }, capacity: 100, tax_rate_bp: 700 },
            { key: 'crew', name: 'Crew', price: 0, audience: 'crew' },
          ],
          goods: [{ key: 'tote', name: 'Tote', price: 1200, capacity: 50, tax_rate_bp: 1900 }],
          donations: [{ key: 'fund', name: 'Fund' }],
          audiences: [{ key: 'crew', name: 'Crew' }],
          portals: [{ key: 'uni', name: 'University' }],
          discount_codes: [{ code: 'FRIENDS10', percent_off: 10 }],
          saved_reports: [
            { name: 'Paid by week', query: 'group=week&range=all&paid=1' },
            { name: 'Codes', query: 'group=code&range=all' },
          ],
          orders: [
            makeOrder({
              ref: 'ORD-1',
              created_at: '2026-10-24T21:00:00Z',
              paid_at: '2026-10-24T21:30:00Z',
              lines: [ga(2), { kind: 'goods', ref: 'tote', quantity: 1, unit_price: 1200, tax_rate_bp: 1900 }],
              discounts: [{ code: 'FRIENDS10', amount: 620 }],
              payments: sbx(5580, '2026-10-24T21:30:00Z'),
            }),
            makeOrder({
              ref: 'ORD-2',
              currency: 'gbp',
              fx_rate: 1.17,
              portal: 'uni',
              created_at: '2026-10-31T23:30:00Z',
              paid_at: '2026-10-31T23:45:00Z',
              lines: [ga(1, 2200)],
              payments: [
                {
                  rail: 'card',
                  amount: 2200,
                  at: '2026-10-31T23:45:00Z',
                  fee: 90,
                  fee_currency: 'gbp',
                  platform_fee: 30,
                  provider_ref: 'pi_2',
                },
              ],
              refunds: [
                { amount: 1000, at: '2026-11-05T10:00:00Z' },
                { amount: 500, at: '2026-11-06T10:00:00Z', status: 'failed' },
              ],
            }),
            makeOrder({
              ref: 'ORD-3',
              status: 'refunded',
              created_at: '2026-11-02T10:00:00Z',
              paid_at: '2026-11-02T10:05:00Z',
              lines: [ga(1)],
              payments: [{ rail: 'card', amount: 2500, at: '2026-11-02T10:05:00Z', fee: null, provider_ref: 'pi_3' }],
              refunds: [{ amount: 2500, at: '2026-11-03T10:00:00Z' }],
            }),
            makeOrder({
              ref: 'ORD-4',
              audience: 'crew',
              created_at: '2026-11-03T09:00:00Z',
              paid_at: '2026-11-03T09:00:00Z',
              lines: [{ kind: 'tickets', ref: 'crew', quantity: 1, unit_price: 0 }],
              payments: [],
            }),
            makeOrder({
              ref: 'ORD-5',
              status: 'pending',
              created_at: '2026-11-20T10:00:00Z',
              paid_at: undefined,
              expires_at: '2027-01-01T00:00:00Z',
              lines: [ga(1)],
              payments: [],
            }),
            makeOrder({
              ref: 'ORD-6',
              status: 'pending',
              created_at: '2026-11-01T10:00:00Z',
              paid_at: undefined,
              expires_at: '2026-11-05T00:00:00Z',
              lines: [ga(1)],
              payments: [],
            }),
            makeOrder({
              ref: 'ORD-7',
              status: 'canceled',
              created_at: '2026-11-04T10:00:00Z',
              paid_at: undefined,
              lines: [ga(1)],
              payments: [],
            }),
            makeOrder({
              ref: 'ORD-8',
              created_at: '2026-11-10T08:00:00Z',
              paid_at: '2026-11-10T08:00:00Z',
              lines: [{ kind: 'donations', ref: 'fund', quantity: 1, unit_price: 1000 }, ga(1)],
              payments: [
                { rail: 'card', amount: 3500, at: '2026-11-10T08:00:00Z', fee: 130, fee_currency: 'eur', provider_ref: 'pi_8' },
              ],
            }),
          ],
        }),
        makeEvent({
          slug: 'dst',
          timezone: 'Europe/Berlin',
          ticket_types: [{ key: 'ga', name: 'GA', price: 1000 }],
          orders: ['2026-10-24T22:30:00Z', '2026-10-25T22:30:00Z', '2026-10-25T23:00:00Z'].map((at, i) =>
            makeOrder({
              ref: `DST-${i}`,
              created_at: at,
              paid_at: at,
              lines: [{ kind: 'tickets', ref: 'ga', quantity: 1, unit_price: 1000 }],
              payments: sbx(1000, at),
            }),
          ),
        }),
        makeEvent({
          slug: 'kiritimati',
          timezone: 'Pacific/Kiritimati',
          ticket_types: [{ key: 'ga', name: 'GA', price: 1000 }],
          sessions: [{ key: 's1', starts_at: '2027-01-01T20:00:00Z', ends_at: '2027-01-01T22:00:00Z', capacity: 5 }],
          orders: [
            makeOrder({
              ref: 'KIR-1',
              created_at: '2026-10-31T10:30:00Z',
              paid_at: '2026-10-31T10:30:00Z',
              lines: [
                { kind: 'tickets', ref: 'ga', quantity: 1, unit_price: 1000 },
                { kind: 'sessions', ref: 's1', quantity: 1, unit_price: 0 },
              ],
              payments: [{ rail: 'sandbox', amount: 1000, at: '2026-10-31T10:30:00Z', fee: 0, provider_ref: 'sbx_k' }],
            }),
          ],
        }),
      ],
    }),
  );
  return { t, a };
}
