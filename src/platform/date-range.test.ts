import { describe, expect, it } from 'vitest';
import { addDays, localDate, parseDate, resolveRange, zonedMidnight } from './date-range.ts';

const now = new Date('2026-11-22T12:00:00Z');
const BER = 'Europe/Berlin';

describe('resolveRange', () => {
  it('defaults and clamps to 30d', () => {
    for (const range of [undefined, '', '90d', 'ALL', ['7d'], 7]) {
      const r = resolveRange({ range }, now, BER);
      expect(r).toEqual({ range: '30d', from: '', to: '', start: new Date('2026-10-23T12:00:00Z'), end: null });
    }
  });

  it('rolls 7d and 24h back from now', () => {
    expect(resolveRange({ range: '7d' }, now, BER).start).toEqual(new Date('2026-11-15T12:00:00Z'));
    expect(resolveRange({ range: '24h' }, now, BER).start).toEqual(new Date('2026-11-21T12:00:00Z'));
  });

  it('month is the calendar month to date in the event timezone', () => {
    expect(resolveRange({ range: 'month' }, now, BER).start).toEqual(new Date('2026-10-31T23:00:00Z'));
    // just after midnight on the 1st in Tokyo it is still the previous month in UTC
    const tokyo = resolveRange({ range: 'month' }, new Date('2026-11-30T16:30:00Z'), 'Asia/Tokyo');
    expect(tokyo.start).toEqual(new Date('2026-11-30T15:00:00Z'));
    expect(resolveRange({ range: 'month' }, new Date('2026-12-01T05:00:00Z'), 'America/Los_Angeles').start).toEqual(
      new Date('2026-11-01T07:00:00Z'),
    );
  });

  it('all has no bounds', () => {
    expect(resolveRange({ range: 'all', from: '2026-01-01' }, now, BER)).toEqual({
      range: 'all',
      from: '',
      to: '',
      start: null,
      end: null,
    });
  });

  it('custom takes dates in the event timezone, to inclusive, and does not move with the clock', () => {
    const r = resolveRange({ range: 'custom', from: '2026-03-01', to: '2026-03-31' }, now, BER);
    expect(r).toEqual({
      range: 'custom',
      from: '2026-03-01',
      to: '2026-03-31',
      start: new Date('2026-02-28T23:00:00Z'),
      end: new Date('2026-03-31T22:00:00Z'),
    });
    expect(
      resolveRange({ range: 'custom', from: '2026-03-01', to: '2026-03-31' }, new Date('2030-01-01T00:00:00Z'), BER),
    ).toEqual(r);
  });

  it('swaps reversed bounds, ignores unparseable ones, falls back to 30d with none', () => {
    expect(resolveRange({ range: 'custom', from: '2026-03-31', to: '2026-03-01' }, now, BER)).toMatchObject({
      from: '2026-03-01',
      to: '2026-03-31',
    });
    expect(resolveRange({ range: 'custom', from: 'yesterday', to: '2026-03-01' }, now, BER)).toMatchObject({
      range: 'custom',
      from: '',
      to: '2026-03-01',
      start: null,
    });
    expect(resolveRange({ range: 'custom', from: '2026-02-30' }, now, BER)).toMatchObject({ range: '30d', from: '', to: '' });
    expect(resolveRange({ range: 'custom' }, now, BER).range).toBe('30d');
    expect(resolveRange({ range: 'custom', from: '2026-03-01' }, now, BER)).toMatchObject({
      range: 'custom',
      from: '2026-03-01',
      to: '',
      end: null,
    });
  });

  it('DST days are 23 and 25 hours long', () => {
    const spring = resolveRange({ range: 'custom', from: '2026-03-29', to: '2026-03-29' }, now, BER);
    expect(spring.end!.getTime() - spring.start!.getTime()).toBe(23 * 3_600_000);
    const autumn = resolveRange({ range: 'custom', from: '2026-10-25', to: '2026-10-25' }, now, BER);
    expect(autumn.end!.getTime() - autumn.start!.getTime()).toBe(25 * 3_600_000);
    const ny = resolveRange({ range: 'custom', from: '2026-03-08', to: '2026-03-08' }, now, 'America/New_York');
    expect(ny.end!.getTime() - ny.start!.getTime()).toBe(23 * 3_600_000);
    // a zone that never changes, far from UTC
    const kiri = resolveRange({ range: 'custom', from: '2026-06-01', to: '2026-06-01' }, now, 'Pacific/Kiritimati');
    expect(kiri.start).toEqual(new Date('2026-05-31T10:00:00Z'));
  });
});

describe('date helpers', () => {
  it('parse only real dates', () => {
    expect(parseDate('2028-02-29')).toBe('2028-02-29');
    expect(parseDate('2027-02-29')).toBeNull();
    expect(parseDate('2026-1-01')).toBeNull();
    expect(parseDate(20260101)).toBeNull();
  });

  it('local dates and midnights', () => {
    expect(localDate(new Date('2026-10-31T23:30:00Z'), BER)).toBe('2026-11-01');
    expect(zonedMidnight('2026-10-25', BER)).toEqual(new Date('2026-10-24T22:00:00Z'));
    expect(zonedMidnight('2026-10-26', BER)).toEqual(new Date('2026-10-25T23:00:00Z'));
    expect(addDays('2026-12-31', 1)).toBe('2027-01-01');
  });
});
