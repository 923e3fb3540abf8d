import type { Db } from '../../platform/db/database.ts';

/** Public path of a stored image; the hash prefix makes the URL change when the bytes do. */
export function imagePath(id: number, sha256: string): string {
  return `/_img/${id}/${sha256.slice(0, 16)}`;
}

export interface StoredImage {
  id: number;
  sha256: string;
}

export async function insertImage(
  db: Db,
  img: { accountId: number; contentType: string; bytes: Buffer; sha256: string; sourceUrl: string | null },
): Promise<StoredImage> {
  const row = await db
    .insertInto('images')
    .values({
      account_id: img.accountId,
      content_type: img.contentType,
      bytes: img.bytes,
      sha256: img.sha256,
      source_url: img.sourceUrl,
    })
    .returning(['id', 'sha256'])
    .executeTakeFirstOrThrow();
  return { id: Number(row.id), sha256: row.sha256 };
}

/** Copies an image row (duplicate theme): a new row, so deleting one theme's image never touches the other. */
export async function copyImage(db: Db, accountId: number, id: number | null): Promise<number | null> {
  if (id === null) return null;
  const row = await db
    .insertInto('images')
    .columns(['account_id', 'content_type', 'bytes', 'sha256', 'source_url'])
    .expression((eb) =>
      eb
        .selectFrom('images')
        .select(['account_id', 'content_type', 'bytes', 'sha256', 'source_url'])
        .where('id', '=', id)
        .where('account_id', '=', accountId),
    )
    .returning('id')
    .executeTakeFirst();
  return row ? Number(row.id) : null;
}

export async function findImages(db: Db, accountId: number, ids: number[]): Promise<Map<number, StoredImage>> {
  if (ids.length === 0) return new Map();
  const rows = await db
    .selectFrom('images')
    .select(['id', 'sha256'])
    .where('account_id', '=', accountId)
    .where('id', 'in', ids)
    .execute();
  return new Map(rows.map((r) => [Number(r.id), { id: Number(r.id), sha256: r.sha256 }]));
}

/** The bytes behind a public image path: the id and the hash prefix must both match. */
export async function loadImageBytes(
  db: Db,
  id: number,
  hashPrefix: string,
): Promise<{ contentType: string; bytes: Uint8Array; sha256: string } | undefined> {
  const row = await db.selectFrom('images').select(['content_type', 'bytes', 'sha256']).where('id', '=', id).executeTakeFirst();
  if (!row || hashPrefix.length < 16 || !row.sha256.startsWith(hashPrefix)) return undefined;
  return { contentType: row.content_type, bytes: row.bytes, sha256: row.sha256 };
}
