/**
 * Load loops for the scale-out tests: workers that send requests back to back through the
 * balancer and keep count of every answer, so a test can say "no request failed" or "nothing lost
 * or doubled" with the numbers.
 */

export interface Tally {
  sent: number;
  statuses: Record<string, number>;
  /** network errors (the connection refused or dropped), by message */
  errors: Record<string, number>;
}

export function newTally(): Tally {
  return { sent: 0, statuses: {}, errors: {} };
}

export function count(t: Tally, status: number | string): void {
  t.statuses[status] = (t.statuses[status] ?? 0) + 1;
}

export function countError(t: Tally, err: unknown): void {
  const e = err as { cause?: { code?: string; message?: string }; message?: string };
  const what = e.cause?.code ?? e.cause?.message ?? e.message ?? String(err);
  t.errors[what] = (t.errors[what] ?? 0) + 1;
}

/** Runs `workers` loops of `step` until `until()` says stop (checked between requests). */
export async function loop(
  workers: number,
  until: () => boolean,
  step: (worker: number, n: number) => Promise<void>,
): Promise<void> {
  await Promise.all(
    Array.from({ length: workers }, async (_, w) => {
      for (let n = 0; !until(); n++) await step(w, n);
    }),
  );
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * A client that does what the API asks of one: the same Idempotency-Key on every retry, retrying
 * only when it got no answer (connection refused or dropped, or the balancer's 502/503/504).
 * Returns the final answer, or null after `tries` failures.
 */
export async function postWithRetries(
  url: string,
  init: { headers: Record<string, string>; body: string },
  tally: Tally,
  tries = 40,
): Promise<{ status: number; body: Record<string, unknown> } | null> {
  for (let i = 0; i < tries; i++) {
    tally.sent++;
    try {
      const res = await fetch(url, { method: 'POST', headers: init.headers, body: init.body });
      count(tally, res.status);
      if (res.status === 502 || res.status === 503 || res.status === 504) {
        await res.arrayBuffer();
        await sleep(50 + i * 25);
        continue;
      }
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    } catch (err) {
      countError(tally, err);
      await sleep(50 + i * 25);
    }
  }
  return null;
}
