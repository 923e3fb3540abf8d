import { notFound } from '../../platform/errors.ts';
import { minorDigits } from '../../platform/money.ts';
import { tzOffset } from '../../platform/date-range.ts';
import type { EventDocument } from '../events/event-config.service.ts';
import { freeKey, slugify } from './derived-keys.ts';

/**
 * The catalogue editor's kinds and fields: how each item of the event document is shown in a
 * form and read back from one. One generic editor serves ticket types, goods, sessions,
 * donations, discount codes, audiences, portals and check-in lists.
 */
export type FieldType =
  'text' | 'money' | 'moneynull' | 'int' | 'intnull' | 'bool' | 'datetime' | 'keys' | 'key' | 'percentbp' | 'tiers' | 'includes';

export interface FieldSpec {
  name: string;
  label: string;
  type: FieldType;
  hint?: string;
  /** for 'keys' / 'key': which list of the document holds the choices */
  choices?: 'ticket_types' | 'audiences' | 'goods';
  required?: boolean;
  /** shown when creating only (the identity of an item never changes) */
  createOnly?: boolean;
}

export interface KindSpec {
  slug: string;
  list: 'ticket_types' | 'goods' | 'sessions' | 'donations' | 'discount_codes' | 'audiences' | 'portals' | 'checkin_lists';
  id: 'key' | 'code';
  title: string;
  singular: string;
  fields: FieldSpec[];
}

const keyField: FieldSpec = {
  name: 'key',
  label: 'Key',
  type: 'text',
  createOnly: true,
  hint: 'The short name integrations and exports use. Empty: made from the name. Fixed once created.',
};
const nameField: FieldSpec = { name: 'name', label: 'Name', type: 'text', required: true };
const onSale: FieldSpec = { name: 'on_sale', label: 'On sale', type: 'bool' };
const capacity: FieldSpec = { name: 'capacity', label: 'Capacity', type: 'intnull', hint: 'Empty: no limit.' };
const tax: FieldSpec = { name: 'tax_rate_bp', label: 'Tax rate (%)', type: 'percentbp', hint: 'For example 7 or 19.' };

export const KINDS: KindSpec[] = [
  {
    slug: 'ticket-types',
    list: 'ticket_types',
    id: 'key',
    title: 'Ticket types',
    singular: 'ticket type',
    fields: [
      nameField,
      keyField,
      { name: 'price', label: 'Price', type: 'money', required: true },
      capacity,
      { name: 'max_per_order', label: 'Most per order', type: 'intnull', hint: 'Empty: no cap.' },
      { name: 'position', label: 'Display order', type: 'int' },
      onSale,
      tax,
      { name: 'audience', label: 'Only for audience', type: 'key', choices: 'audiences' },
      { name: 'requires_session', label: 'Needs a session', type: 'bool' },
      {
        name: 'group_discounts',
        label: 'Group discounts',
        type: 'tiers',
        hint: 'From quantity : percent off, comma-separated, for example 4:10, 10:15.',
      },
      { name: 'includes', label: 'Included goods', type: 'includes', hint: 'good key : quantity, for example wristband:1.' },
    ],
  },
  {
    slug: 'goods',
    list: 'goods',
    id: 'key',
    title: 'Goods',
    singular: 'good',
    fields: [nameField, keyField, { name: 'price', label: 'Price', type: 'money', required: true }, capacity, onSale, tax],
  },
  {
    slug: 'sessions',
    list: 'sessions',
    id: 'key',
    title: 'Sessions',
    singular: 'session',
    fields: [
      { name: 'name', label: 'Name', type: 'text' },
      keyField,
      { name: 'starts_at', label: 'Starts', type: 'datetime', required: true },
      { name: 'ends_at', label: 'Ends', type: 'datetime' },
      capacity,
      onSale,
      { name: 'ticket_types', label: 'For ticket types', type: 'keys', choices: 'ticket_types' },
    ],
  },
  {
    slug: 'donations',
    list: 'donations',
    id: 'key',
    title: 'Donations',
    singular: 'donation',
    fields: [nameField, keyField, onSale],
  },
  {
    slug: 'codes',
    list: 'discount_codes',
    id: 'code',
    title: 'Discount codes',
    singular: 'discount code',
    fields: [
      { name: 'code', label: 'Code', type: 'text', required: true, createOnly: true, hint: 'Letters, digits, - and _.' },
      { name: 'percent_off', label: 'Percent off', type: 'intnull', hint: 'Give a percent or an amount, not both.' },
      { name: 'amount_off', label: 'Amount off', type: 'moneynull' },
      { name: 'max_uses', label: 'Most uses', type: 'intnull', hint: 'Empty: unlimited.' },
      {
        name: 'ticket_types',
        label: 'Only for ticket types',
        type: 'keys',
        choices: 'ticket_types',
        hint: 'None ticked: every ticket type.',
      },
    ],
  },
  { slug: 'audiences', list: 'audiences', id: 'key', title: 'Audiences', singular: 'audience', fields: [nameField, keyField] },
  {
    slug: 'portals',
    list: 'portals',
    id: 'key',
    title: 'Portals',
    singular: 'portal',
    fields: [nameField, keyField, { name: 'audience', label: 'Audience', type: 'key', choices: 'audiences' }],
  },
  {
    slug: 'checkin-lists',
    list: 'checkin_lists',
    id: 'key',
    title: 'Check-in lists',
    singular: 'check-in list',
    fields: [
      nameField,
      keyField,
      {
        name: 'ticket_types',
        label: 'Ticket types',
        type: 'keys',
        choices: 'ticket_types',
        hint: 'None ticked: every ticket type.',
      },
    ],
  },
];

export function kindOf(slug: string): KindSpec | undefined {
  return KINDS.find((k) => k.slug === slug);
}

// ---- values <-> form text

export function moneyText(cents: number | null | undefined, currency: string): string {
  if (cents === null || cents === undefined) return '';
  const d = minorDigits(currency);
  return d === 0 ? String(cents) : (cents / 10 ** d).toFixed(d);
}

export function parseMoney(text: string, currency: string): number | null {
  const t = text.trim().replace(',', '.');
  const d = minorDigits(currency);
  const m = d === 0 ? /^\d{1,12}$/.exec(t) : new RegExp(`^(\\d{1,12})(?:\\.(\\d{1,${d}}))?$`).exec(t);
  if (!m) return null;
  if (d === 0) return Number(t);
  return Number(m[1]) * 10 ** d + Number((m[2] ?? '').padEnd(d, '0'));
}

/** `YYYY-MM-DDTHH:mm` in `tz` for an instant (a datetime-local value). */
export function localInput(at: string | undefined, tz: string): string {
  if (!at) return '';
  const t = Date.parse(at);
  return new Date(t + tzOffset(t, tz)).toISOString().slice(0, 16);
}

/** The instant a datetime-local value names in `tz` (exact across DST changes). */
export function fromLocalInput(value: string, tz: string): string | null {
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}$/.test(value)) return null;
  const wall = Date.parse(`${value}:00Z`);
  if (Number.isNaN(wall)) return null;
  let guess = wall - tzOffset(wall, tz);
  guess = wall - tzOffset(guess, tz);
  return new Date(guess).toISOString().replace('.000Z', 'Z');
}

type Item = Record<string, unknown>;

/** What a form field shows for an item's value. */
export function fieldText(f: FieldSpec, item: Item, currency: string, tz: string): string | string[] | boolean {
  const v = item[f.name];
  switch (f.type) {
    case 'money':
    case 'moneynull':
      return moneyText(v as number | null, currency);
    case 'bool':
      return v === undefined ? f.name === 'on_sale' : Boolean(v);
    case 'datetime':
      return localInput(v as string | undefined, tz);
    case 'keys':
      return (v as string[] | undefined) ?? [];
    case 'percentbp':
      return v === undefined || v === null ? '' : String(Number(v) / 100);
    case 'tiers':
      return ((v as Array<{ min_quantity: number; percent_off: number }> | undefined) ?? [])
        .map((t) => `${t.min_quantity}:${t.percent_off}`)
        .join(', ');
    case 'includes':
      return ((v as Array<{ good: string; quantity?: number }> | undefined) ?? [])
        .map((i) => `${i.good}:${i.quantity ?? 1}`)
        .join(', ');
    default:
      return v === undefined || v === null ? '' : String(v);
  }
}

/** Reads an item from form values; errors by field name. Fields the form does not show are kept from `base`. */
export function readItem(
  kind: KindSpec,
  form: Record<string, string>,
  lists: Record<string, string[]>,
  base: Item,
  currency: string,
  tz: string,
  creating: boolean,
): { item: Item; errors: Record<string, string[]> } {
  const item: Item = { ...base };
  const errors: Record<string, string[]> = {};
  const bad = (name: string, msg: string) => (errors[name] ??= []).push(msg);
  for (const f of kind.fields) {
    if (f.createOnly && !creating) continue;
    const raw = (form[f.name] ?? '').trim();
    switch (f.type) {
      case 'text':
        if (raw === '' && !f.required) delete item[f.name];
        else if (raw === '') bad(f.name, 'is required');
        else item[f.name] = raw;
        break;
      case 'money':
      case 'moneynull': {
        if (raw === '') {
          if (f.type === 'money') bad(f.name, 'is required');
          else delete item[f.name];
          break;
        }
        const cents = parseMoney(raw, currency);
        if (cents === null) bad(f.name, `is not an amount (like ${moneyText(2500, currency)})`);
        else item[f.name] = cents;
        break;
      }
      case 'int':
      case 'intnull': {
        if (raw === '') {
          if (f.type === 'int') delete item[f.name];
          else item[f.name] = null;
          if (f.type === 'intnull' && kind.id === 'code' && f.name !== 'max_uses') delete item[f.name];
          break;
        }
        if (!/^\d{1,10}$/.test(raw)) bad(f.name, 'must be a whole number');
        else item[f.name] = Number(raw);
        break;
      }
      case 'bool':
        item[f.name] = form[f.name] === '1';
        break;
      case 'datetime': {
        if (raw === '') {
          if (f.required) bad(f.name, 'is required');
          else delete item[f.name];
          break;
        }
        const at = fromLocalInput(raw, tz);
        if (!at) bad(f.name, 'is not a date and time');
        else item[f.name] = at;
        break;
      }
      case 'keys': {
        const keys = lists[f.name] ?? [];
        if (keys.length) item[f.name] = keys;
        else if (kind.list === 'sessions') item[f.name] = [];
        else delete item[f.name];
        break;
      }
      case 'key':
        if (raw === '') delete item[f.name];
        else item[f.name] = raw;
        break;
      case 'percentbp': {
        if (raw === '') {
          item[f.name] = 0;
          break;
        }
        const m = /^(\d{1,3})(?:[.,](\d{1,2}))?$/.exec(raw);
        if (!m) bad(f.name, 'must be a percent like 7 or 19.5');
        else item[f.name] = Number(m[1]) * 100 + Number((m[2] ?? '').padEnd(2, '0'));
        break;
      }
      case 'tiers': {
        const tiers = [];
        for (const part of raw
          .split(',')
          .map((p) => p.trim())
          .filter(Boolean)) {
          const m = /^(\d{1,6})\s*:\s*(\d{1,3})$/.exec(part);
          if (!m) {
            bad(f.name, `"${part}" is not quantity:percent`);
            continue;
          }
          tiers.push({ min_quantity: Number(m[1]), percent_off: Number(m[2]) });
        }
        item[f.name] = tiers;
        break;
      }
      case 'includes': {
        const inc = [];
        for (const part of raw
          .split(',')
          .map((p) => p.trim())
          .filter(Boolean)) {
          const m = /^([a-z0-9][a-z0-9_-]*)\s*(?::\s*(\d{1,4}))?$/.exec(part);
          if (!m) {
            bad(f.name, `"${part}" is not good:quantity`);
            continue;
          }
          inc.push({ good: m[1]!, quantity: m[2] ? Number(m[2]) : 1 });
        }
        item[f.name] = inc;
        break;
      }
    }
  }
  return { item, errors };
}

/** The document's validation errors for one item (`$.ticket_types[2].price` -> `price`). */
export function itemErrors(kind: KindSpec, index: number, fields: Record<string, string[]>): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  const prefix = `$.${kind.list}[${index}]`;
  for (const [path, msgs] of Object.entries(fields)) {
    if (path === prefix) (out._ ??= []).push(...msgs);
    else if (path.startsWith(`${prefix}.`)) {
      const name = path.slice(prefix.length + 1).replace(/[.[].*$/, '');
      (out[name] ??= []).push(...msgs);
    } else if (!path.startsWith(`$.${kind.list}[`))
      (out._ ??= []).push(`${path.replace(/^\$\.?/, '') || 'event'}: ${msgs.join(', ')}`);
  }
  return out;
}

export function listOf(doc: EventDocument, kind: KindSpec): Item[] {
  return ((doc as unknown as Record<string, Item[] | undefined>)[kind.list] ?? []) as Item[];
}

/**
 * The document with one item of `kind` added (`id` undefined), replaced or removed, and the item's
 * index (where the document's errors for it point). With `errors` the form could not be read and
 * the document is not to be saved.
 */
export function changedDocument(
  document: EventDocument,
  kind: KindSpec,
  change: { id: string | undefined; remove: boolean; form: Record<string, string>; lists: Record<string, string[]> },
): { doc: Record<string, Item[]>; index: number; errors: Record<string, string[]> } {
  const doc = structuredClone(document) as unknown as Record<string, Item[]>;
  const items = doc[kind.list] ?? [];
  const { id } = change;
  const index = id === undefined ? items.length : items.findIndex((it) => String(it[kind.id]) === id);
  if (index < 0) throw notFound(`No such ${kind.singular}`);
  if (change.remove) items.splice(index, 1);
  else {
    const { item, errors } = readItem(
      kind,
      change.form,
      change.lists,
      id === undefined ? {} : items[index]!,
      document.currency,
      document.timezone,
      id === undefined,
    );
    if (kind.id === 'key' && id === undefined && item.key === undefined) {
      const taken = new Set(items.map((it) => String(it.key)));
      item.key = freeKey(slugify(String(item.name ?? '')) || slugify(kind.singular), taken, 100);
    }
    if (kind.list === 'ticket_types' && id === undefined && item.position === undefined) item.position = items.length;
    items[index] = item;
    // with `errors` the document still holds what could be read: the caller checks it too, so
    // every problem of the form shows in one round
    if (Object.keys(errors).length) return { doc: { ...doc, [kind.list]: items }, index, errors };
  }
  doc[kind.list] = items;
  return { doc, index, errors: {} };
}

/** The "Generate codes" form: how many, a prefix, the percent off and the uses per code (empty: unlimited). */
export function readCodesForm(form: Record<string, string>): {
  input: { count: number; prefix: string; percent_off: number; max_uses: number | null };
  errors: Record<string, string[]>;
} {
  const errors: Record<string, string[]> = {};
  const count = Number(form.count);
  if (!/^\d{1,5}$/.test(form.count ?? '') || count < 1 || count > 10_000) errors.count = ['must be a number from 1 to 10,000'];
  if (!/^[A-Za-z0-9_-]{0,24}$/.test(form.prefix ?? '')) errors.prefix = ['letters, digits, - and _ only'];
  const percent = Number(form.percent_off);
  if (!/^\d{1,3}$/.test(form.percent_off ?? '') || percent < 1 || percent > 100)
    errors.percent_off = ['must be a percent from 1 to 100'];
  const uses = form.max_uses ? Number(form.max_uses) : null;
  if (form.max_uses && !/^\d{1,9}$/.test(form.max_uses)) errors.max_uses = ['must be a whole number'];
  return { input: { count, prefix: form.prefix ?? '', percent_off: percent, max_uses: uses }, errors };
}
