import { expect } from 'vitest';
import type { ConsoleClient } from './console-client.ts';

/**
 * Runs `fn` with the signed-in person's console language set to German on "Your sign-in", and sets
 * it back to "as my browser asks" afterwards (the choice is the person's, shared by their sessions).
 */
export async function inGerman<T>(c: ConsoleClient, fn: () => Promise<T>): Promise<T> {
  await c.get('/console/me');
  expect((await c.post('/console/me/language', { language: 'de' })).statusCode).toBe(303);
  try {
    return await fn();
  } finally {
    await c.get('/console/me');
    expect((await c.post('/console/me/language', { language: '' })).statusCode).toBe(303);
  }
}

/**
 * The phrases of `phrases` a page still shows, as whole words, in its text or in an attribute
 * (aria-label, title): the English left in a page that should be German.
 */
export function leftoverEnglish(body: string, phrases: readonly string[]): string[] {
  const text = body
    .replace(/<(style|script)\b[\s\S]*?<\/\1>/g, ' ')
    .replace(/<[^>]*>/g, ' ')
    .replace(/\s+/g, ' ');
  const attributes = [...body.matchAll(/(?:aria-label|title|placeholder)="([^"]*)"/g)].map((m) => m[1]).join(' | ');
  return phrases.filter((p) => {
    const word = new RegExp(`(?<![\\p{L}])${p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?![\\p{L}])`, 'u');
    return word.test(text) || word.test(attributes);
  });
}
