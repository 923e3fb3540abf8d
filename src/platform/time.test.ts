import { describe, expect, it } from 'vitest';
import { dateTimeFormat, iso } from './time.ts';

describe('time', () => {
  it('iso drops a zero fraction', () => {
    expect(iso(new Date('2026-11-22T12:00:00Z'))).toBe('2026-11-22T12:00:00Z');
    expect(iso(new Date('2026-11-22T12:00:00.250Z'))).toBe('2026-11-22T12:00:00.250Z');
  });

  it('dateTimeFormat makes one formatter per locale and options and formats like a new one', () => {
    const options = { timeZone: 'Asia/Kathmandu', dateStyle: 'medium', timeStyle: 'short' } as const;
    const a = dateTimeFormat('en-GB', options);
    expect(dateTimeFormat('en-GB', { ...options })).toBe(a);
    expect(dateTimeFormat('de-AT', options)).not.toBe(a);
    expect(dateTimeFormat('en-GB', { ...options, timeZone: 'UTC' })).not.toBe(a);
    const at = new Date('2026-11-22T12:00:00Z');
    expect(a.format(at)).toBe(new Intl.DateTimeFormat('en-GB', options).format(at));
  });
});
