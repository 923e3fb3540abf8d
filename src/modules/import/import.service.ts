import { clearCaches } from '../../platform/cache.ts';
import type { AppContext } from '../../platform/context.ts';
import type { Db } from '../../platform/db/database.ts';
import { AppError } from '../../platform/errors.ts';
import { hashToken } from '../../platform/http/auth.ts';
import { lineTax } from '../../platform/money.ts';
import { indexedSecret } from '../../platform/secrets.ts';
import { apiHoldEnd } from '../orders/holds.ts';
import { deleteAccount, insertAccount } from '../accounts/accounts.repo.ts';
import { normaliseInvoicing } from '../accounts/invoicing.service.ts';
import { insertCheckin } from '../checkin/checkin.repo.ts';
import { addCodeUses } from '../discounts/discounts.repo.ts';
import { insertSeries } from '../events/events.repo.ts';
import { tryReserve } from '../inventory/stock.repo.ts';
import { insertHistoricalOrder, orderRefTaken } from '../orders/order-history.repo.ts';
import { insertPayment } from '../payments/payments.repo.ts';
import { insertRefund } from '../refunds/refunds.repo.ts';
import { insertHtmlTemplate, insertTheme } from '../themes/themes.repo.ts';
import { deriveThemeSettings } from '../themes/theme-colors.ts';
import { insertToken, tokenHashTaken } from '../tokens/tokens.repo.ts';
import { addUser } from '../users/users.service.ts';
import { lineRate, parseAccountFile } from '../events/account-file.schemas.ts';
import type { AccountFile, EventIn, OrderIn } from '../events/event-document.ts';
import type { Written } from '../events/event-items.repo.ts';
import { writeEventDocument } from '../events/event-writer.repo.ts';
import { prepareImportedWallet } from '../wallet/wallet-keys.service.ts';

export interface ImportResult {
  account: string;
  events: number;
  orders: number;
  replaced: boolean;
}

/**
 * Loads one account file in a single transaction: on any error nothing is written.
 * An existing slug is refused unless `replace`, which deletes that account first (same transaction).
 */
export async function importAccount(ctx: AppContext, input: unknown, opts: { replace?: boolean } = {}): Promise<ImportResult> {
  const file = parseAccountFile(input);
  // wallet keys are checked (and the sealing key made) before the transaction
  const writeWallet = await prepareImportedWallet(ctx, file.account.wallet);
  const result = await ctx.db.transaction().execute(async (trx) => {
    const existing = await trx.selectFrom('accounts').select('id').where('slug', '=', file.account.slug).executeTakeFirst();
    if (existing && !opts.replace) {
      throw new AppError(
        'conflict',
        'account_exists',
        `An account with slug "${file.account.slug}" exists; use --replace to overwrite it`,
      );
    }
    if (existing) await deleteAccount(trx, existing.id);
    const accountId = await writeAccount(trx, file, ctx.clock.now());
    await writeWallet(trx, accountId, ctx.clock.now());
    // people of the console (contract section 7): made, or given this role when they exist
    for (const u of file.users ?? []) {
      await addUser(trx, {
        accountId,
        email: u.email,
        name: u.name,
        role: u.role,
        password: u.password,
        passwordHash: u.password_hash,
      });
    }
    let orders = 0;
    for (const [i, e] of (file.events ?? []).entries()) {
      orders += await writeEvent(ctx, trx, accountId, file, e, `$.events[${i}]`);
    }
    return { account: file.account.slug, events: file.events?.length ?? 0, orders, replaced: Boolean(existing) };
  });
  // this instance sees the new catalogue at once; others within their cache TTL (catalogueCacheMs)
  clearCaches(ctx.db);
  return result;
}

async function writeAccount(db: Db, f: AccountFile, now: Date): Promise<number> {
  const p = f.account.payments;
  const accountId = await insertAccount(db, {
    slug: f.account.slug,
    name: f.account.name,
    region: f.account.region ?? null,
    payments_mode: p?.mode ?? 'none',
    payments_provider: p?.provider ?? 'sandbox',
    payments_api_key: p?.api_key ?? null,
    payments_api_base: p?.api_base ?? null,
    platform_fee_bp: p?.platform_fee_bp ?? 0,
    platform_fee_fixed_cents: p?.platform_fee_fixed ?? 0,
    hide_powered_by_allowed: f.account.plan?.hide_powered_by ?? false,
    invoicing: f.account.invoicing ? JSON.stringify(normaliseInvoicing(f.account.invoicing)) : null,
  });

  for (const [i, t] of (f.tokens ?? []).entries()) {
    const hash = t.secret_sha256 ?? hashToken(t.secret!);
    if (await tokenHashTaken(db, hash))
      throw new AppError('conflict', 'invalid_account_file', `$.tokens[${i}].secret: already used by another account's token`);
    await insertToken(db, {
      account_id: accountId,
      name: t.name,
      token_hash: hash,
      capabilities: [...new Set(t.capabilities)],
      scopes: [...new Set(t.scopes ?? [])],
      event_slugs: t.events ? [...new Set(t.events)] : null,
    });
  }
  for (const s of f.series ?? []) {
    await insertSeries(db, accountId, s);
  }
  const templateIds = new Map<string, number>();
  for (const t of f.html_templates ?? []) {
    templateIds.set(t.key, await insertHtmlTemplate(db, accountId, t));
  }
  for (const t of f.themes ?? []) {
    const settings: Record<string, unknown> = { ...(t.settings ?? {}) };
    for (const channel of ['web', 'email', 'attendee_hub']) {
      const name = `default_${channel}_html_template_id`;
      if (typeof settings[name] === 'string') settings[name] = templateIds.get(settings[name]);
    }
    await insertTheme(
      db,
      accountId,
      { name: t.name, is_default: t.is_default ?? false, settings: deriveThemeSettings(settings) },
      now,
    );
  }
  return accountId;
}

/**
 * One event of an account file: its configuration through the events module's writer (the one the
 * config API uses; creating is applying the document to no event), then its orders, as history.
 */
async function writeEvent(ctx: AppContext, db: Db, accountId: number, f: AccountFile, e: EventIn, at: string): Promise<number> {
  const { event, items } = await writeEventDocument(db, ctx.clock.now(), accountId, null, e);
  const eventDates = {
    id: event.id,
    starts_at: new Date(event.starts_at),
    payment_expires_at: event.payment_expires_at ? new Date(event.payment_expires_at) : null,
  };
  for (const [j, o] of (e.orders ?? []).entries()) {
    await writeOrder(ctx, db, accountId, f, e, eventDates, o, items, `${at}.orders[${j}]`);
  }
  return e.orders?.length ?? 0;
}

/** An order line's item: its table, and its name in the file (a line of an unnamed session says its key). */
const LINE_ITEMS = {
  tickets: { table: 'ticket_types', of: (e: EventIn) => e.ticket_types },
  goods: { table: 'goods', of: (e: EventIn) => e.goods },
  sessions: { table: 'sessions', of: (e: EventIn) => e.sessions },
  donations: { table: 'donations', of: (e: EventIn) => e.donations },
} as const;

async function writeOrder(
  ctx: AppContext,
  db: Db,
  accountId: number,
  f: AccountFile,
  e: EventIn,
  event: { id: number; starts_at: Date; payment_expires_at: Date | null },
  o: OrderIn,
  m: Written,
  at: string,
): Promise<void> {
  const mode = e.tax_mode ?? 'inclusive';
  const currency = o.currency ?? e.currency;
  const fxRate = o.fx_rate ?? (currency === e.currency ? 1 : (e.fx_rates?.[currency] ?? 1));
  const lines = o.lines.map((l) => {
    const total = l.unit_price * l.quantity;
    const rate = lineRate(e, l);
    return { l, total, rate, tax: l.tax ?? lineTax(total, rate, mode) };
  });
  const subtotal = lines.reduce((s, x) => s + x.total + (mode === 'exclusive' ? x.tax : 0), 0);
  const discount = (o.discounts ?? []).reduce((s, d) => s + d.amount, 0);
  const succeededRefunds = (o.refunds ?? []).filter((r) => (r.status ?? 'succeeded') === 'succeeded');
  const refunded = succeededRefunds.reduce((s, r) => s + r.amount, 0);
  const paidAt = o.paid_at ?? (o.status === 'paid' || o.status === 'refunded' ? (o.payments?.[0]?.at ?? o.created_at) : null);
  const refundedAt = o.status === 'refunded' ? (succeededRefunds.at(-1)?.at ?? paidAt) : null;
  const expiresAt =
    o.status === 'pending' ? (o.expires_at ?? apiHoldEnd(event, new Date(o.created_at)).toISOString()) : (o.expires_at ?? null);

  if (await orderRefTaken(db, accountId, o.ref))
    throw new AppError('conflict', 'invalid_account_file', `${at}.ref: "${o.ref}" is already used in this account`);
  const holdsStock = o.status === 'paid' || o.status === 'pending';
  const ticketed = o.status === 'paid' || o.status === 'refunded';
  let ticketNo = 0;
  const written = lines.map(({ l, total, rate, tax }, k) => {
    const { table, of } = LINE_ITEMS[l.kind];
    const item = m[table].get(l.ref)!;
    const tickets =
      l.kind === 'tickets' && ticketed
        ? Array.from({ length: l.quantity }, (_, n) => {
            ticketNo++;
            return {
              ticket_type_id: item.id,
              ref: `${o.ref}-${ticketNo}`,
              attendee_name: l.attendees?.[n] || null,
              qr_token: indexedSecret(),
              status: o.status === 'paid' ? ('valid' as const) : ('voided' as const),
              position: ticketNo,
              created_at: paidAt ?? o.created_at,
            };
          })
        : [];
    return {
      item,
      line: {
        kind: l.kind,
        ticket_type_id: l.kind === 'tickets' ? item.id : null,
        good_id: l.kind === 'goods' ? item.id : null,
        session_id: l.kind === 'sessions' ? item.id : null,
        donation_id: l.kind === 'donations' ? item.id : null,
        inventory_id: item.inventoryId,
        name: of(e)?.find((x) => x.key === l.ref)?.name || l.ref,
        quantity: l.quantity,
        unit_price_cents: l.unit_price,
        total_cents: total,
        tax_rate_bp: rate,
        tax_cents: tax,
        included: l.kind === 'goods' && l.unit_price === 0,
        position: k,
      },
      tickets,
    };
  });
  // stock first: an order the file's capacities cannot hold is refused before anything is written
  for (const [k, { item, line }] of written.entries()) {
    if (!holdsStock || item.inventoryId === null) continue;
    if ((await tryReserve(db, new Map([[item.inventoryId, line.quantity]]))) !== null) {
      throw new AppError(
        'conflict',
        'invalid_account_file',
        `${at}.lines[${k}]: "${o.lines[k]!.ref}" has not enough capacity left for this order`,
      );
    }
  }
  const codeIds = (o.discounts ?? []).map((d) => m.discount_codes.get(d.code.toUpperCase())?.id ?? null);
  const { orderId, ticketIds } = await insertHistoricalOrder(db, {
    accountId,
    eventId: event.id,
    importedAt: ctx.clock.now(),
    order: {
      ref: o.ref,
      status: o.status,
      currency,
      fx_rate: String(fxRate),
      subtotal_cents: subtotal,
      discount_cents: discount,
      total_cents: subtotal - discount,
      refunded_cents: refunded,
      ticket_units: o.lines.filter((l) => l.kind === 'tickets').reduce((n, l) => n + l.quantity, 0),
      tax_cents: lines.reduce((n, x) => n + x.tax, 0),
      name: o.name ?? null,
      email: o.email ?? null,
      audience_id: o.audience ? m.audiences.get(o.audience)!.id : null,
      portal_id: o.portal ? m.portals.get(o.portal)!.id : null,
      channel: 'import',
      access_secret: indexedSecret(),
      qr_token: indexedSecret(),
      codes_key: (o.discounts ?? []).map((d) => d.code).join(','),
      answers: JSON.stringify(o.answers ?? []),
      created_at: o.created_at,
      paid_at: paidAt,
      canceled_at: o.status === 'canceled' ? (o.canceled_at ?? o.created_at) : (o.canceled_at ?? null),
      refunded_at: refundedAt,
      expires_at: expiresAt,
    },
    lines: written.map(({ line, tickets }) => ({ line, tickets })),
    discounts: (o.discounts ?? []).map((d, k) => ({
      discount_code_id: codeIds[k]!,
      code: d.code,
      amount_cents: d.amount,
      position: k,
    })),
  });
  for (const [k, l] of o.lines.entries()) {
    for (const ticketId of ticketIds[k]!) {
      for (const listKey of l.checked_in ?? []) {
        await insertCheckin(db, {
          accountId,
          listId: m.checkin_lists.get(listKey)!.id,
          ticketId,
          qrCodeScanned: true,
          online: true,
          at: paidAt ? new Date(paidAt) : new Date(o.created_at),
        });
      }
    }
  }
  for (const codeId of codeIds) if (codeId !== null && o.status !== 'canceled') await addCodeUses(db, codeId, 1);
  const provider = f.account.payments?.provider === 'stripe' ? 'stripe' : 'sandbox';
  let firstPaymentId: number | null = null;
  for (const p of o.payments ?? []) {
    const id = await insertPayment(db, {
      account_id: accountId,
      order_id: orderId,
      rail: p.rail,
      provider: p.rail === 'sandbox' ? 'sandbox' : provider,
      status: 'succeeded',
      amount_cents: p.amount,
      currency,
      provider_ref: p.provider_ref ?? null,
      fee_cents: p.fee ?? null,
      fee_currency: p.fee_currency ?? currency,
      platform_fee_cents: p.platform_fee ?? 0,
      simulated: p.rail === 'sandbox',
      created_at: p.at,
      succeeded_at: p.at,
    });
    firstPaymentId ??= id;
  }
  for (const r of o.refunds ?? []) {
    await insertRefund(db, {
      account_id: accountId,
      order_id: orderId,
      payment_id: firstPaymentId,
      amount_cents: r.amount,
      currency,
      status: r.status ?? 'succeeded',
      simulated: o.payments?.[0]?.rail === 'sandbox',
      created_at: r.at,
      completed_at: r.at,
    });
  }
}
