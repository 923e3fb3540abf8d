/** PostgreSQL error codes the services act on. */
export function isUniqueViolation(err: unknown, constraints?: string[]): boolean {
  const e = err as { code?: string; constraint?: string; message?: string };
  if (e?.code !== '23505') return false;
  if (!constraints) return true;
  return constraints.some((c) => e.constraint === c || (e.message ?? '').includes(c));
}

/** A deadlock or serialization failure: the transaction did nothing and may simply run again. */
export function isRetryableConflict(err: unknown): boolean {
  const code = (err as { code?: string })?.code;
  return code === '40P01' || code === '40001';
}
