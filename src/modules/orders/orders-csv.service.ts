import { Readable } from 'node:stream';
import { sql } from 'kysely';
import type { AppContext } from '../../platform/context.ts';
import type { Db } from '../../platform/db/database.ts';
import { AppError } from '../../platform/errors.ts';
import type { Principal } from '../../platform/http/auth.ts';
import { minorDigits } from '../../platform/money.ts';
import { loadVisibleEvent } from '../events/events.service.ts';
import { tzOffset } from '../../platform/date-range.ts';
import { eachOrderBatch, type DeskOrder, type OrderFilter } from './order-search.repo.ts';
import { dateTimeFormat } from '../../platform/time.ts';
import { ticketSeatJson, type SeatView } from './orders.repo.ts';
import { seatText } from './seat-text.ts';

/**
 * Orders and attendees as CSV: UTF-8 with a byte-order mark (spreadsheet programs then read it as
 * UTF-8), one row per order or per ticket, the filtered set, streamed batch by batch so a million
 * orders export in constant memory. Money as decimal amounts beside a currency column; times in the
 * event's timezone; text that a spreadsheet would run as a formula is defused.
 */

export const CSV_KINDS = ['orders', 'attendees'] as const;
export type CsvKind = (typeof CSV_KINDS)[number];

const BOM = '\uFEFF';

/** `orders` (the default) or `attendees`; anything else is a 422 naming `kind`. */
export function csvKindOf(raw: unknown): CsvKind {
  if (raw === undefined || raw === '') return 'orders';
  if (typeof raw === 'string' && (CSV_KINDS as readonly string[]).includes(raw)) return raw as CsvKind;
  throw new AppError('unprocessable', 'validation_failed', 'kind must be orders or attendees', {
    fields: { kind: ['must be orders or attendees'] },
  });
}

/** A text cell: quoted when it must be; a leading =, +, -, @, tab or CR gets a ' so it stays text. */
export function textCell(value: string | null | undefined): string {
  let v = value ?? '';
  if (/^[=+\-@\t\r]/.test(v)) v = `'${v}`;
  return /[",\r\n']/.test(v) || v !== v.trim() ? `"${v.replace(/"/g, '""')}"` : v;
}

/** Minor units as a decimal amount ("12.50", "1200" for JPY, "1.250" for KWD); never a formula. */
export function amountCell(cents: number, currency: string): string {
  const digits = minorDigits(currency);
  if (digits === 0) return String(cents);
  const sign = cents < 0 ? '-' : '';
  const abs = Math.abs(cents);
  const unit = 10 ** digits;
  return `${sign}${Math.floor(abs / unit)}.${String(abs % unit).padStart(digits, '0')}`;
}

/**
 * "2026-11-22 13:05:00" in the event's timezone (what spreadsheets read as a date and time). The
 * zone's offset is looked up once per quarter hour of time (every offset change in use falls on a
 * quarter hour), then each stamp is shifted and printed from its UTC fields: far cheaper per row
 * than formatting each stamp through Intl.
 */
function localTime(tz: string): (at: Date | null) => string {
  const offsets = new Map<number, number>();
  const pad = (n: number) => String(n).padStart(2, '0');
  return (at) => {
    if (!at) return '';
    const t = at.getTime();
    const quarter = Math.floor(t / 900_000);
    let offset = offsets.get(quarter);
    if (offset === undefined) {
      offset = tzOffset(t, tz);
      if (offsets.size > 10_000) offsets.clear();
      offsets.set(quarter, offset);
    }
    const d = new Date(t + offset);
    return `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`;
  };
}

const line = (cells: string[]) => `${cells.join(',')}\r\n`;

/**
 * Lines joined into pieces of a few hundred: a piece stays in the young generation (one text of
 * a whole 2,000-order batch, some 200 kB, would be born in the old generation's large-object
 * space and wait there for a full collection).
 */
function pieces(lines: string[], size = 400): string[] {
  const out: string[] = [];
  for (let i = 0; i < lines.length; i += size) out.push(lines.slice(i, i + size).join(''));
  return out;
}

function orderRows(orders: DeskOrder[], time: (at: Date | null) => string): string[] {
  return pieces(
    orders.map((o) =>
      line([
        textCell(o.ref),
        o.status,
        time(o.created_at),
        time(o.paid_at),
        textCell(o.name),
        textCell(o.email),
        o.currency.toUpperCase(),
        amountCell(o.total_cents, o.currency),
        amountCell(o.refunded_cents, o.currency),
        String(o.ticket_units),
        textCell(o.codes_key),
        o.channel,
      ]),
    ),
  );
}

interface TicketRow {
  id: string | number;
  order_id: string | number;
  ref: string;
  status: string;
  attendee_name: string | null;
  type_name: string;
  seat: SeatView | null;
  unit_price_cents: number;
  checked_in_at: Date | null;
}

async function attendeeRows(db: Db, orders: DeskOrder[], time: (at: Date | null) => string): Promise<string[]> {
  const byId = new Map(orders.map((o) => [o.id, o]));
  const tickets = (
    await sql<TicketRow>`
      select t.id, t.order_id, t.ref, t.status, t.attendee_name, tt.name as type_name, ${ticketSeatJson('t')} as seat,
        l.unit_price_cents,
        (select min(c.created_at) from checkins c where c.ticket_id = t.id and not c.conflict) as checked_in_at
      from tickets t
      join ticket_types tt on tt.id = t.ticket_type_id
      join order_lines l on l.id = t.order_line_id
      where t.order_id = any(${sql.val(orders.map((o) => o.id))}::bigint[])
      order by t.order_id desc, t.position, t.id`.execute(db)
  ).rows;
  // newest order first, as the orders are
  const rank = new Map(orders.map((o, i) => [o.id, i]));
  tickets.sort((a, b) => rank.get(Number(a.order_id))! - rank.get(Number(b.order_id))!);
  return pieces(
    tickets.map((t) => {
      const o = byId.get(Number(t.order_id))!;
      return line([
        textCell(t.ref),
        textCell(o.ref),
        o.status,
        t.status === 'valid' && o.status === 'paid' ? 'valid' : 'void',
        textCell(t.type_name),
        textCell(seatText(t.seat)),
        // the name the ticket carries, as its PDF prints it: the buyer's when none was given per ticket
        textCell(t.attendee_name ?? o.name),
        textCell(o.name),
        textCell(o.email),
        o.currency.toUpperCase(),
        amountCell(t.unit_price_cents, o.currency),
        time(t.checked_in_at ? new Date(t.checked_in_at) : null),
      ]);
    }),
  );
}

/** The export as a stream of CSV text, and the file name to offer. */
export async function exportOrdersCsv(
  ctx: AppContext,
  p: Principal,
  eventSlug: string,
  kind: CsvKind,
  filter: OrderFilter,
): Promise<{ filename: string; stream: Readable }> {
  const event = await loadVisibleEvent(ctx, p, eventSlug);
  const tz = event.timezone;
  const time = localTime(tz);
  const header =
    kind === 'orders'
      ? [
          'order',
          'status',
          `created (${tz})`,
          `paid (${tz})`,
          'buyer name',
          'buyer email',
          'currency',
          'total',
          'refunded',
          'tickets',
          'discount codes',
          'channel',
        ]
      : [
          'ticket',
          'order',
          'order status',
          'ticket status',
          'ticket type',
          'seat',
          'attendee',
          'buyer name',
          'buyer email',
          'currency',
          'price',
          `checked in (${tz})`,
        ];
  async function* csv(): AsyncGenerator<string> {
    yield BOM + line(header.map(textCell));
    for await (const batch of eachOrderBatch(ctx.db, p.accountId, event, filter)) {
      yield* kind === 'orders' ? orderRows(batch, time) : await attendeeRows(ctx.db, batch, time);
    }
  }
  const day = dateTimeFormat('en-CA', { timeZone: tz }).format(ctx.clock.now());
  return { filename: `${event.slug}-${kind}-${day}.csv`, stream: Readable.from(csv(), { objectMode: false }) };
}
