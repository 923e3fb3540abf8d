/** RFC 3339 in UTC, without a fractional part when it is zero. */
export function iso(d: Date | string): string;
export function iso(d: Date | string | null | undefined): string | null;
export function iso(d: Date | string | null | undefined): string | null {
  if (d === null || d === undefined) return null;
  return new Date(d).toISOString().replace('.000Z', 'Z');
}
