import { randomBytes, randomInt } from 'node:crypto';

/** URL-safe random secret; 24 bytes = 192 bits. */
export function randomSecret(bytes = 24): string {
  return randomBytes(bytes).toString('base64url');
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
