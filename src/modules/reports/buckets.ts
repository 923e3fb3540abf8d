import { sql, type RawBuilder } from 'kysely';

/**
 * Calendar buckets (day, week from Monday, month) in an event's timezone, found with
 * width_bucket over the bucket starts instead of converting every row's timestamp: a
 * comparison per order instead of a timezone conversion and a to_char. DST days come out
 * 23 or 25 hours long because the starts are local midnights converted to instants.
 *
 * Use as `with bounds as (${bucketBounds(...)})`, group by `${bucketOf(stamp)}`, label with
 * `${bucketLabel(col, ...)}`. `span` must select `lo` and `hi` covering every stamp grouped.
 */
export type CalendarUnit = 'day' | 'week' | 'month';

const FORMAT: Record<CalendarUnit, string> = { day: 'YYYY-MM-DD', week: 'YYYY-MM-DD', month: 'YYYY-MM' };
const STEP: Record<CalendarUnit, RawBuilder<unknown>> = {
  day: sql.raw(`interval '1 day'`),
  week: sql.raw(`interval '1 week'`),
  month: sql.raw(`interval '1 month'`),
};

export function bucketBounds(span: RawBuilder<unknown>, unit: CalendarUnit, tz: string): RawBuilder<unknown> {
  return sql`select coalesce(array(
      select m at time zone ${tz}
      from (${span}) s, generate_series(date_trunc(${unit}, s.lo at time zone ${tz}), s.hi at time zone ${tz}, ${STEP[unit]}) as m
    ), '{}') as b`;
}

export function bucketOf(stamp: RawBuilder<unknown>): RawBuilder<number> {
  return sql<number>`width_bucket(${stamp}, (select b from bounds))`;
}

export function bucketLabel(bucket: RawBuilder<unknown>, unit: CalendarUnit, tz: string): RawBuilder<string> {
  return sql<string>`to_char((select b from bounds)[${bucket}] at time zone ${tz}, ${FORMAT[unit]})`;
}
