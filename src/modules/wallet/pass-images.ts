import { crc32, deflateSync } from 'node:zlib';

/**
 * Apple refuses a pass without icon.png; the account has no wallet artwork to upload (yet), so a
 * pass carries a plain square in the pass's colour, drawn here once per colour: a PNG is a
 * signature, a header chunk, the deflated rows and an end chunk.
 */
function chunk(type: string, data: Buffer): Buffer {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body) >>> 0);
  return Buffer.concat([len, body, crc]);
}

export function solidPng(width: number, height: number, [r, g, b]: [number, number, number]): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8; // bit depth
  header[9] = 2; // truecolour RGB
  const row = Buffer.alloc(1 + width * 3);
  for (let x = 0; x < width; x++) row.set([r, g, b], 1 + x * 3);
  const rows = Buffer.concat(Array.from({ length: height }, () => row));
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(rows)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

const cache = new Map<string, Record<string, Buffer>>();

/** icon.png (29 pt) and logo.png (50 pt tall) at 1x and 2x, in one colour. */
export function passImages(rgb: [number, number, number]): Record<string, Buffer> {
  const key = rgb.join(',');
  let images = cache.get(key);
  if (!images) {
    images = {
      'icon.png': solidPng(29, 29, rgb),
      'icon@2x.png': solidPng(58, 58, rgb),
      'logo.png': solidPng(50, 50, rgb),
      'logo@2x.png': solidPng(100, 100, rgb),
    };
    if (cache.size < 64) cache.set(key, images);
  }
  return images;
}
