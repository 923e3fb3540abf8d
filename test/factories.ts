import type { AppContext } from '../src/platform/context.ts';
import { importAccount } from '../src/modules/import/import.service.ts';
import type { AccountFile, EventIn, OrderIn } from '../src/modules/events/event-document.ts';

let seq = 0;
const next = () => ++seq;

/** Well-known token secrets the factories give every account (prefix + account slug). */
export function tokenSecrets(account: string) {
  const s = (name: string) => `adm_test_${name}_${account}_0123456789abcdef`.slice(0, 64);
  return {
    all: s('all'),
    view: s('view'),
    orders: s('orders'),
    manage: s('manage'),
    refund: s('refund'),
    none: s('none'),
    invitations: s('invitations'),
    limited: s('limited'),
  };
}

export function makeEvent(overrides: Partial<EventIn> = {}): EventIn {
  const n = next();
  return {
    slug: `event-${n}`,
    name: `Event ${n}`,
    currency: 'eur',
    timezone: 'Europe/Berlin',
    starts_at: '2027-03-15T18:00:00Z',
    ticket_types: [{ key: 'ga', name: 'General admission', price: 2500, capacity: 100, tax_rate_bp: 700 }],
    ...overrides,
  };
}

export function makeOrder(overrides: Partial<OrderIn> = {}): OrderIn {
  const n = next();
  return {
    ref: `T-${String(n).padStart(5, '0')}`,
    status: 'paid',
    email: `buyer${n}@example.org`,
    created_at: '2026-11-01T10:00:00Z',
    paid_at: '2026-11-01T10:05:00Z',
    lines: [{ kind: 'tickets', ref: 'ga', quantity: 1, unit_price: 2500 }],
    payments: [{ rail: 'sandbox', amount: 2500, at: '2026-11-01T10:05:00Z', fee: 0, provider_ref: `sbx_${n}` }],
    ...overrides,
  };
}

/**
 * An account file with one token per capability combination worth testing. `limitedTo` is the
 * event list of the `limited` token (default: the first event).
 */
export function makeAccountFile(
  overrides: Partial<AccountFile> & { slug?: string; events?: EventIn[]; limitedTo?: string[] } = {},
): AccountFile {
  const slug = overrides.slug ?? `acct-${next()}`;
  const events = overrides.events ?? [makeEvent()];
  const t = tokenSecrets(slug);
  const all = ['events.view', 'orders.view', 'orders.manage', 'refund', 'events.manage', 'tokens.manage', 'webhooks.manage'];
  const { limitedTo, slug: _slug, ...rest } = overrides;
  return {
    account: { slug, name: `Account ${slug}`, payments: { mode: 'sandbox' } },
    tokens: [
      { name: 'all', secret: t.all, capabilities: all, scopes: ['invitations.view'] },
      { name: 'view', secret: t.view, capabilities: ['events.view'] },
      { name: 'orders', secret: t.orders, capabilities: ['orders.view'] },
      { name: 'manage', secret: t.manage, capabilities: ['orders.manage'] },
      { name: 'refund', secret: t.refund, capabilities: ['refund'] },
      { name: 'none', secret: t.none, capabilities: [] },
      { name: 'invitations', secret: t.invitations, capabilities: ['events.view'], scopes: ['invitations.view'] },
      { name: 'limited', secret: t.limited, capabilities: all, events: limitedTo ?? (events[0] ? [events[0].slug] : []) },
    ],
    ...rest,
    events,
  };
}

export async function seedAccount(ctx: AppContext, file: AccountFile = makeAccountFile()) {
  await importAccount(ctx, file);
  return { file, slug: file.account.slug, tokens: tokenSecrets(file.account.slug), events: file.events ?? [] };
}
