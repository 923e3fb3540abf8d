import type { AppContext } from '../../platform/context.ts';
import { notFound } from '../../platform/errors.ts';
import { iso } from '../../platform/time.ts';
import { getEventConfig } from '../events/event-config.service.ts';
import * as repo from './account-export.repo.ts';

/** Where the account file goes, a piece at a time (a file, a response, a string in a test). */
export type Sink = (chunk: string) => void | Promise<void>;

export interface ExportProgress {
  orders: number;
  of: number;
}

const PAGE = 500;
const TEMPLATE_SETTINGS = [
  'default_web_html_template_id',
  'default_email_html_template_id',
  'default_attendee_hub_html_template_id',
];

type Row<T extends (...a: never[]) => Promise<unknown[]>> = Awaited<ReturnType<T>>[number];

/**
 * Writes one account as an account file (contract section 16): configuration, tokens as
 * `secret_sha256`, people as `password_hash`, every event's document and its orders with their
 * lines, attendees, check-ins, codes, payments and refunds. Orders are read a page at a time, so
 * memory stays flat however many there are; `progress` is told after each page. What the format
 * cannot carry is listed in docs/decisions/operations.md (export).
 */
export async function exportAccount(
  ctx: AppContext,
  slug: string,
  write: Sink,
  progress?: (p: ExportProgress) => void,
): Promise<ExportProgress> {
  const account = await repo.accountBySlug(ctx.db, slug);
  if (!account) throw notFound(`No account with slug "${slug}"`);
  const total = await repo.countOrders(ctx.db, account.id);
  const done: ExportProgress = { orders: 0, of: total };
  const json = (v: unknown) => JSON.stringify(v);

  const payments =
    account.payments_mode === 'none' && account.payments_provider === 'sandbox'
      ? undefined
      : {
          mode: account.payments_mode,
          provider: account.payments_provider,
          // the provider's secret key is not written: it is entered again where the file is imported
          ...(account.payments_api_base ? { api_base: account.payments_api_base } : {}),
          platform_fee_bp: account.platform_fee_bp,
          platform_fee_fixed: Number(account.platform_fee_fixed_cents),
        };
  await write(
    `{"account":${json({
      slug: account.slug,
      name: account.name,
      ...(account.region ? { region: account.region } : {}),
      ...(payments ? { payments } : {}),
      ...(account.hide_powered_by_allowed ? { plan: { hide_powered_by: true } } : {}),
    })}`,
  );

  const tokens = await repo.accountTokens(ctx.db, account.id);
  await write(
    `,"tokens":${json(
      tokens.map((t) => ({
        name: t.name,
        secret_sha256: t.token_hash,
        capabilities: t.capabilities,
        ...(t.scopes.length ? { scopes: t.scopes } : {}),
        ...(t.event_slugs ? { events: t.event_slugs } : {}),
      })),
    )}`,
  );
  const people = (await repo.accountPeople(ctx.db, account.id)).filter((p) => p.password_hash);
  await write(
    `,"users":${json(people.map((p) => ({ email: p.email, ...(p.name ? { name: p.name } : {}), role: p.role, password_hash: p.password_hash })))}`,
  );
  await write(`,"series":${json(await repo.accountSeries(ctx.db, account.id))}`);
  const templates = await repo.accountTemplates(ctx.db, account.id);
  const keyOf = new Map(templates.map((t) => [Number(t.id), t.key]));
  await write(`,"html_templates":${json(templates.map(({ id: _id, ...t }) => t))}`);
  const themes = (await repo.accountThemes(ctx.db, account.id)).map((t) => {
    const settings: Record<string, unknown> = { ...t.settings };
    for (const name of TEMPLATE_SETTINGS) {
      if (typeof settings[name] === 'number') settings[name] = keyOf.get(settings[name]);
    }
    return { name: t.name, is_default: t.is_default, settings };
  });
  await write(`,"themes":${json(themes)}`);

  await write(`,"events":[`);
  for (const [i, e] of (await repo.accountEventIds(ctx.db, account.id)).entries()) {
    const { document } = await getEventConfig(ctx, account.id, e.slug);
    const head = json(document);
    await write(`${i ? ',' : ''}${head.slice(0, -1)}${head.length > 2 ? ',' : ''}"orders":[`);
    let after = 0;
    let first = true;
    for (;;) {
      const orders = await repo.orderPage(ctx.db, Number(e.id), after, PAGE);
      if (!orders.length) break;
      const ids = orders.map((o) => Number(o.id));
      const parts = await readParts(ctx, ids);
      const chunk = orders.map((o) => json(orderOf(o, document.currency, parts))).join(',');
      await write(`${first ? '' : ','}${chunk}`);
      first = false;
      after = ids.at(-1)!;
      done.orders += orders.length;
      progress?.({ ...done });
    }
    await write(`]}`);
  }
  await write(`]}\n`);
  return done;
}

async function readParts(ctx: AppContext, ids: number[]) {
  const [lines, tickets, discounts, payments, refunds] = await Promise.all([
    repo.linesOf(ctx.db, ids),
    repo.ticketsOf(ctx.db, ids),
    repo.discountsOf(ctx.db, ids),
    repo.paymentsOf(ctx.db, ids),
    repo.refundsOf(ctx.db, ids),
  ]);
  const group = <T, K>(rows: T[], key: (r: T) => K) => {
    const m = new Map<K, T[]>();
    for (const r of rows) {
      const k = key(r);
      const list = m.get(k);
      if (list) list.push(r);
      else m.set(k, [r]);
    }
    return m;
  };
  return {
    lines: group(lines, (l) => Number(l.order_id)),
    tickets: group(tickets, (t) => Number(t.order_line_id)),
    discounts: group(discounts, (d) => Number(d.order_id)),
    payments: group(payments, (p) => Number(p.order_id)),
    refunds: group(refunds, (r) => Number(r.order_id)),
  };
}

type Parts = Awaited<ReturnType<typeof readParts>>;

function orderOf(o: Row<typeof repo.orderPage>, eventCurrency: string, parts: Parts) {
  const id = Number(o.id);
  const fx = Number(o.fx_rate);
  return {
    ref: o.ref,
    status: o.status,
    ...(o.currency !== eventCurrency ? { currency: o.currency } : {}),
    ...(fx !== 1 ? { fx_rate: fx } : {}),
    ...(o.name ? { name: o.name } : {}),
    ...(o.email ? { email: o.email } : {}),
    ...(o.audience ? { audience: o.audience } : {}),
    ...(o.portal ? { portal: o.portal } : {}),
    created_at: iso(o.created_at),
    ...(o.paid_at ? { paid_at: iso(o.paid_at) } : {}),
    ...(o.canceled_at ? { canceled_at: iso(o.canceled_at) } : {}),
    ...(o.status === 'pending' && o.expires_at ? { expires_at: iso(o.expires_at) } : {}),
    lines: (parts.lines.get(id) ?? []).flatMap((l) => linesOf(l, parts.tickets.get(Number(l.id)) ?? [])),
    ...optional(
      'discounts',
      (parts.discounts.get(id) ?? []).map((d) => ({ code: d.code, amount: Number(d.amount_cents) })),
    ),
    ...optional(
      'payments',
      (parts.payments.get(id) ?? []).map((p) => ({
        rail: p.rail,
        amount: Number(p.amount_cents),
        at: iso(p.succeeded_at ?? p.created_at),
        fee: p.fee_cents === null ? null : Number(p.fee_cents),
        ...(p.fee_currency && p.fee_currency !== o.currency ? { fee_currency: p.fee_currency } : {}),
        ...(Number(p.platform_fee_cents) ? { platform_fee: Number(p.platform_fee_cents) } : {}),
        ...(p.provider_ref ? { provider_ref: p.provider_ref } : {}),
      })),
    ),
    ...optional(
      'refunds',
      (parts.refunds.get(id) ?? []).map((r) => ({
        amount: Number(r.amount_cents),
        at: iso(r.completed_at ?? r.created_at),
        ...(r.status === 'failed' ? { status: 'failed' } : {}),
      })),
    ),
    ...optional('answers', (o.answers ?? []) as unknown[]),
  };
}

const optional = <K extends string>(key: K, list: unknown[]) => (list.length ? { [key]: list } : {});

/**
 * A line as the file carries it. The file says per line which lists its tickets were admitted to,
 * so a line whose tickets differ (two of four admitted) is written as one line per run of tickets
 * alike: the same tickets, prices and check-ins, over more lines.
 */
function linesOf(l: Row<typeof repo.linesOf>, tickets: Array<Row<typeof repo.ticketsOf>>) {
  const base = {
    kind: l.kind,
    ref: l.item_key,
    unit_price: Number(l.unit_price_cents),
    tax_rate_bp: l.tax_rate_bp,
  };
  if (l.kind !== 'tickets' || !tickets.length) {
    return [{ ...base, quantity: l.quantity, tax: Number(l.tax_cents) }];
  }
  const runs: Array<{ lists: string; tickets: typeof tickets }> = [];
  for (const t of tickets) {
    const lists = (t.lists ?? []).join('\u0000');
    const last = runs.at(-1);
    if (last && last.lists === lists) last.tickets.push(t);
    else runs.push({ lists, tickets: [t] });
  }
  // the line's tax split over the runs in proportion, the remainder on the last, so it adds up to the cent
  let taxLeft = Number(l.tax_cents);
  return runs.map((run, k) => {
    const tax = k === runs.length - 1 ? taxLeft : Math.round((Number(l.tax_cents) * run.tickets.length) / l.quantity);
    taxLeft -= tax;
    const names = run.tickets.map((t) => t.attendee_name ?? '');
    const lists = run.lists ? run.lists.split('\u0000') : [];
    return {
      ...base,
      quantity: run.tickets.length,
      tax,
      ...(names.some(Boolean) ? { attendees: names } : {}),
      ...(lists.length ? { checked_in: lists } : {}),
    };
  });
}
