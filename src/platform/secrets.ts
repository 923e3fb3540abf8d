import { randomFillSync, randomInt } from 'node:crypto';
import { perDb } from './cache.ts';
import type { Db } from './db/database.ts';

/**
 * Random bytes handed out from a pool refilled 4 KiB at a time: an order takes two secrets, and
 * one call into the CSPRNG per 4 KiB instead of one per secret (randomBytes) took 3-4% of the
 * server's time in a flash sale. The bytes are the same CSPRNG output; none is handed out twice.
 */
const pool = Buffer.allocUnsafe(4096);
let used = pool.length;

function random(bytes: number): Buffer {
  if (bytes > pool.length) return randomFillSync(Buffer.allocUnsafe(bytes));
  if (used + bytes > pool.length) {
    randomFillSync(pool);
    used = 0;
  }
  const slice = pool.subarray(used, used + bytes);
  used += bytes;
  return slice;
}

/** URL-safe random secret; 24 bytes = 192 bits. */
export function randomSecret(bytes = 24): string {
  return random(bytes).toString('base64url');
}

/**
 * A secret kept under a unique index (an order's or a ticket's QR token, an order's link): the
 * same 32 characters as randomSecret(), of which the first 8 are the time in milliseconds and the
 * other 24 are 144 random bits. Secrets made close in time sort next to each other, so each insert
 * lands on the index pages the last ones touched instead of a random page of an index far larger
 * than the database's buffers: on 5 million orders, the two indexes of wholly random secrets read
 * a page from outside the buffers for about 40% of the orders written, all other indexes of the
 * table together about as often (docs/decisions/performance.md, "Secrets in time order"). What the
 * prefix tells is when the order was made, which whoever holds the secret knows anyway.
 */
export function indexedSecret(at = Date.now()): string {
  const bytes = Buffer.allocUnsafe(24);
  bytes.writeUIntBE(Math.max(0, Math.min(at, 2 ** 48 - 1)), 0, 6);
  random(18).copy(bytes, 6);
  return bytes.toString('base64url');
}

const REF_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';

/** Human-friendly reference like "K7QX-M2PA" (no 0/O/1/I). */
export function randomRef(groups = 2, size = 4): string {
  const parts: string[] = [];
  for (let g = 0; g < groups; g++) {
    let s = '';
    for (let i = 0; i < size; i++) s += REF_ALPHABET[randomInt(REF_ALPHABET.length)];
    parts.push(s);
  }
  return parts.join('-');
}

const appSecrets = new WeakMap<Db, Map<string, Promise<string>>>();

/**
 * A shared secret by name, created once in the database (`app_secrets`), so every instance
 * reads the same one: the form tokens' and queue passes' signing keys, the sealing key. Kept per
 * database and name; a failed read is not kept.
 */
export function appSecret(db: Db, name: string): Promise<string> {
  const named = perDb(appSecrets, db, () => new Map<string, Promise<string>>());
  let p = named.get(name);
  if (!p) {
    p = (async () => {
      await db
        .insertInto('app_secrets')
        .values({ name, value: randomSecret(32) })
        .onConflict((oc) => oc.column('name').doNothing())
        .execute();
      const row = await db.selectFrom('app_secrets').select('value').where('name', '=', name).executeTakeFirstOrThrow();
      return row.value;
    })();
    p.catch(() => named.delete(name));
    named.set(name, p);
  }
  return p;
}
