import { createRequire } from 'node:module';
import { Ajv2020, type ErrorObject } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { AppError } from '../../platform/errors.ts';
import { hashToken } from '../../platform/http/auth.ts';
import { lineTax } from '../../platform/money.ts';
import { isReservedComponentName } from '../themes/templates.ts';
import { isReservedAccountSlug } from '../accounts/reserved-slugs.ts';
import { invoicingProblems } from '../accounts/invoicing.service.ts';
import type { AccountFile, EventIn, OrderIn, OrderLineIn } from './event-document.ts';
import { numberProblems } from './number-bounds.ts';
import { seatingProblems } from './seating-plan.ts';

const require = createRequire(import.meta.url);
// the project's copy of the contract's schema, kept where test/fixtures/README.md says to refresh it
const schema = require('./account-file.schema.json') as object;

const ajv = new Ajv2020({ allErrors: true, strict: false });
(addFormatsModule as unknown as (a: Ajv2020) => void)(ajv);
const validateSchema = ajv.compile(schema);

/** `/events/0/ticket_types/2` -> `$.events[0].ticket_types[2]` */
export function jsonPath(pointer: string): string {
  return (
    '$' +
    pointer
      .split('/')
      .slice(1)
      .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'))
      .map((p) => (/^\d+$/.test(p) ? `[${p}]` : /^[A-Za-z_][\w]*$/.test(p) ? `.${p}` : `[${JSON.stringify(p)}]`))
      .join('')
  );
}

function describeSchemaError(e: ErrorObject): string {
  const at = jsonPath(e.instancePath);
  if (e.keyword === 'additionalProperties') {
    return `${at}.${String(e.params.additionalProperty)}: unknown key`;
  }
  if (e.keyword === 'required') return `${at}.${String(e.params.missingProperty)}: is required`;
  return `${at}: ${e.message ?? 'is invalid'}`;
}

function importError(problems: string[]): AppError {
  const shown = problems.slice(0, 20);
  const more = problems.length > shown.length ? `\n(and ${problems.length - shown.length} more)` : '';
  return new AppError('unprocessable', 'invalid_account_file', `The account file is invalid:\n${shown.join('\n')}${more}`, {
    extra: { problems: shown },
  });
}

/**
 * Validates against the contract's schema, then checks what a schema cannot: every `key`
 * reference resolves, keys are unique where they must be, and values are meaningful (a real
 * timezone, a sane time order, numbers the checkout and the columns can hold). Throws one
 * AppError naming every JSON path at fault.
 */
export function parseAccountFile(input: unknown): AccountFile {
  if (!validateSchema(input)) {
    const problems = (validateSchema.errors ?? [])
      // `if`/`oneOf` wrappers repeat their children's messages
      .filter((e) => e.keyword !== 'if')
      .map(describeSchemaError);
    // the cross-checks too, as far as the malformed file lets them run: a caller fixing the file
    // (an organiser in the console) sees every problem in one round
    try {
      problems.push(...crossCheck(input as AccountFile));
    } catch {
      // a shape the schema refused can stop a cross-check; the schema's problems stand alone
    }
    throw importError([...new Set(problems)]);
  }
  const file = input as AccountFile;
  const problems = crossCheck(file);
  if (problems.length) throw importError(problems);
  return file;
}

function isTimezone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

function crossCheck(f: AccountFile): string[] {
  const out: string[] = [];
  if (isReservedAccountSlug(f.account.slug)) out.push(`$.account.slug: "${f.account.slug}" is reserved`);
  if (f.account.invoicing) out.push(...invoicingProblems(f.account.invoicing));
  const unique = (items: Array<{ key: string }> | undefined, path: string) => {
    const seen = new Set<string>();
    (items ?? []).forEach((it, i) => {
      if (seen.has(it.key)) out.push(`${path}[${i}].key: "${it.key}" is used twice`);
      seen.add(it.key);
    });
    return seen;
  };
  const eventSlugs = new Set<string>();
  (f.events ?? []).forEach((e, i) => {
    if (eventSlugs.has(e.slug)) out.push(`$.events[${i}].slug: "${e.slug}" is used twice`);
    eventSlugs.add(e.slug);
  });
  const seriesSlugs = new Set<string>();
  (f.series ?? []).forEach((s, i) => {
    if (seriesSlugs.has(s.slug)) out.push(`$.series[${i}].slug: "${s.slug}" is used twice`);
    seriesSlugs.add(s.slug);
  });
  const secrets = new Set<string>();
  (f.tokens ?? []).forEach((t, i) => {
    const hash = t.secret_sha256 ?? hashToken(t.secret ?? '');
    if (secrets.has(hash)) out.push(`$.tokens[${i}].${t.secret_sha256 ? 'secret_sha256' : 'secret'}: used by another token`);
    secrets.add(hash);
    (t.events ?? []).forEach((slug, j) => {
      if (!eventSlugs.has(slug)) out.push(`$.tokens[${i}].events[${j}]: no event "${slug}" in this file`);
    });
  });
  const templates = new Map<string, { kind: string; channel: string }>();
  (f.html_templates ?? []).forEach((t, i) => {
    if (templates.has(t.key)) out.push(`$.html_templates[${i}].key: "${t.key}" is used twice`);
    templates.set(t.key, t);
    if (t.kind === 'component' && isReservedComponentName(t.key)) {
      out.push(`$.html_templates[${i}].key: "${t.key}" is a reserved component name`);
    }
    if (t.kind === 'layout' && !t.body.includes('{{ content }}') && !t.body.includes('{{content}}')) {
      out.push(`$.html_templates[${i}].body: a layout must contain {{ content }}`);
    }
  });
  let defaults = 0;
  (f.themes ?? []).forEach((t, i) => {
    if (t.is_default) defaults++;
    if (defaults > 1 && t.is_default) out.push(`$.themes[${i}].is_default: only one theme can be the default`);
    for (const channel of ['web', 'email', 'attendee_hub']) {
      const name = `default_${channel}_html_template_id`;
      const ref = t.settings?.[name];
      if (ref === undefined || ref === null) continue;
      const tpl = typeof ref === 'string' ? templates.get(ref) : undefined;
      if (!tpl) out.push(`$.themes[${i}].settings.${name}: no html template "${String(ref)}" in this file`);
      else if (tpl.kind !== 'layout' || tpl.channel !== channel) {
        out.push(`$.themes[${i}].settings.${name}: "${String(ref)}" is not a ${channel} layout template`);
      }
    }
  });
  (f.events ?? []).forEach((e, i) => crossCheckEvent(e, `$.events[${i}]`, seriesSlugs, unique, out));
  out.push(...numberProblems(f));
  return out;
}

function crossCheckEvent(
  e: EventIn,
  at: string,
  seriesSlugs: Set<string>,
  unique: (items: Array<{ key: string }> | undefined, path: string) => Set<string>,
  out: string[],
): void {
  if (e.series && !seriesSlugs.has(e.series)) out.push(`${at}.series: no series "${e.series}" in this file`);
  if (!isTimezone(e.timezone)) out.push(`${at}.timezone: "${e.timezone}" is not an IANA timezone`);
  if (e.ends_at && Date.parse(e.ends_at) < Date.parse(e.starts_at)) out.push(`${at}.ends_at: is before starts_at`);
  const salesEnd = e.sales_end_at ?? e.ends_at ?? e.starts_at;
  if (e.sales_start_at && Date.parse(e.sales_start_at) >= Date.parse(salesEnd)) {
    out.push(
      `${at}.sales_start_at: is not before the end of sales (${e.sales_end_at ? 'sales_end_at' : e.ends_at ? 'ends_at' : 'starts_at'})`,
    );
  }
  const currencies = new Set([e.currency, ...(e.currencies ?? [])]);
  for (const c of Object.keys(e.fx_rates ?? {})) {
    if (!currencies.has(c)) out.push(`${at}.fx_rates.${c}: the event does not sell in ${c}`);
  }
  for (const c of currencies) {
    if (c !== e.currency && !(e.fx_rates ?? {})[c]) out.push(`${at}.fx_rates: needs a rate for ${c}`);
  }
  const types = unique(e.ticket_types, `${at}.ticket_types`);
  const goods = unique(e.goods, `${at}.goods`);
  const sessions = unique(e.sessions, `${at}.sessions`);
  const donations = unique(e.donations, `${at}.donations`);
  const audiences = unique(e.audiences, `${at}.audiences`);
  const portals = unique(e.portals, `${at}.portals`);
  const lists = unique(e.checkin_lists, `${at}.checkin_lists`);
  const checkPrices = (prices: Record<string, number> | undefined, path: string) => {
    for (const c of Object.keys(prices ?? {})) {
      if (!currencies.has(c)) out.push(`${path}.prices.${c}: the event does not sell in ${c}`);
    }
  };
  (e.ticket_types ?? []).forEach((t, j) => {
    const p = `${at}.ticket_types[${j}]`;
    checkPrices(t.prices, p);
    if (t.audience && !audiences.has(t.audience)) out.push(`${p}.audience: no audience "${t.audience}" in this event`);
    (t.includes ?? []).forEach((inc, k) => {
      if (!goods.has(inc.good)) out.push(`${p}.includes[${k}].good: no good "${inc.good}" in this event`);
    });
  });
  (e.goods ?? []).forEach((g, j) => checkPrices(g.prices, `${at}.goods[${j}]`));
  const refTypes = (keys: string[] | undefined, path: string) =>
    (keys ?? []).forEach((k, n) => {
      if (!types.has(k)) out.push(`${path}[${n}]: no ticket type "${k}" in this event`);
    });
  (e.sessions ?? []).forEach((s, j) => refTypes(s.ticket_types, `${at}.sessions[${j}].ticket_types`));
  (e.portals ?? []).forEach((p, j) => {
    if (p.audience && !audiences.has(p.audience))
      out.push(`${at}.portals[${j}].audience: no audience "${p.audience}" in this event`);
  });
  const codes = new Set<string>();
  (e.discount_codes ?? []).forEach((d, j) => {
    const p = `${at}.discount_codes[${j}]`;
    if (codes.has(d.code.toUpperCase())) out.push(`${p}.code: "${d.code}" is used twice`);
    codes.add(d.code.toUpperCase());
    if ((d.percent_off === undefined) === (d.amount_off === undefined)) {
      out.push(`${p}: give exactly one of percent_off and amount_off`);
    }
    refTypes(d.ticket_types, `${p}.ticket_types`);
  });
  (e.checkin_lists ?? []).forEach((l, j) => refTypes(l.ticket_types, `${at}.checkin_lists[${j}].ticket_types`));
  if (e.seating) out.push(...seatingProblems(e.seating, e.ticket_types ?? [], `${at}.seating`));
  const refs = new Set<string>();
  const byKind = { tickets: types, goods, sessions, donations } as const;
  (e.orders ?? []).forEach((o, j) => {
    const p = `${at}.orders[${j}]`;
    if (refs.has(o.ref)) out.push(`${p}.ref: "${o.ref}" is used twice`);
    refs.add(o.ref);
    if (o.currency && !currencies.has(o.currency)) out.push(`${p}.currency: the event does not sell in ${o.currency}`);
    if (o.audience && !audiences.has(o.audience)) out.push(`${p}.audience: no audience "${o.audience}" in this event`);
    if (o.portal && !portals.has(o.portal)) out.push(`${p}.portal: no portal "${o.portal}" in this event`);
    o.lines.forEach((l, k) => {
      const lp = `${p}.lines[${k}]`;
      if (!byKind[l.kind].has(l.ref)) out.push(`${lp}.ref: no ${l.kind.replace(/s$/, '')} "${l.ref}" in this event`);
      if (l.attendees && l.kind !== 'tickets') out.push(`${lp}.attendees: only ticket lines have attendees`);
      if (l.attendees && l.attendees.length > l.quantity) out.push(`${lp}.attendees: more names than tickets`);
      (l.checked_in ?? []).forEach((key, n) => {
        if (!lists.has(key)) out.push(`${lp}.checked_in[${n}]: no check-in list "${key}" in this event`);
      });
      if (l.checked_in?.length && l.kind !== 'tickets') out.push(`${lp}.checked_in: only ticket lines are checked in`);
      if (l.checked_in?.length && o.status !== 'paid')
        out.push(`${lp}.checked_in: only tickets of paid orders can be checked in`);
    });
    const total = orderTotal(e, o);
    if (total < 0) out.push(`${p}.discounts: discounts exceed the order's subtotal`);
    const refunded = (o.refunds ?? []).filter((r) => (r.status ?? 'succeeded') === 'succeeded').reduce((s, r) => s + r.amount, 0);
    if (refunded > total) out.push(`${p}.refunds: refunds exceed the order total`);
    if (o.status === 'refunded' && refunded === 0 && total > 0)
      out.push(`${p}.status: a refunded order needs a succeeded refund`);
  });
}

/** The tax rate of a line: as given, else the rate configured on its item. */
export function lineRate(e: EventIn, l: OrderLineIn): number {
  if (l.tax_rate_bp !== undefined) return l.tax_rate_bp;
  if (l.kind === 'tickets') return e.ticket_types?.find((t) => t.key === l.ref)?.tax_rate_bp ?? 0;
  if (l.kind === 'goods') return e.goods?.find((g) => g.key === l.ref)?.tax_rate_bp ?? 0;
  return 0;
}

export function orderTotal(e: EventIn, o: OrderIn): number {
  const mode = e.tax_mode ?? 'inclusive';
  let subtotal = 0;
  for (const l of o.lines) {
    const total = l.unit_price * l.quantity;
    subtotal += total;
    if (mode === 'exclusive') subtotal += l.tax ?? lineTax(total, lineRate(e, l), mode);
  }
  return subtotal - (o.discounts ?? []).reduce((s, d) => s + d.amount, 0);
}
