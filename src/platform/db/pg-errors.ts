/** PostgreSQL error codes the services act on. */
export function isUniqueViolation(err: unknown, constraints?: string[]): boolean {
  const e = err as { code?: string; constraint?: string; message?: string };
  if (e?.code !== '23505') return false;
  if (!constraints) return true;
  return constraints.some((c) => e.constraint === c || (e.message ?? '').includes(c));
}

/** A row names one that is not there (or no longer: deleted by a transaction that committed first). */
export function isForeignKeyViolation(err: unknown, constraints?: string[]): boolean {
  const e = err as { code?: string; constraint?: string };
  return e?.code === '23503' && (!constraints || constraints.includes(e.constraint ?? ''));
}

/** A deadlock or serialization failure: the transaction did nothing and may simply run again. */
export function isRetryableConflict(err: unknown): boolean {
  const code = (err as { code?: string })?.code;
  return code === '40P01' || code === '40001';
}
