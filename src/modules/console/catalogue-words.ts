import { t } from './console-lang.ts';

// The catalogue kinds' titles, labels and hints are written once, in English, in the kinds table
// (catalogue-form.ts); other languages say them through their catalogue's `catalogueWords`. A
// word a catalogue lacks (a field added since) shows in English rather than not at all; a test
// lists every word of the table so a missing translation is caught.

/** A title, label or hint of the kinds table in the request's language. */
export function kindWord(english: string): string;
export function kindWord(english: string | undefined): string | undefined;
export function kindWord(english: string | undefined): string | undefined {
  if (english === undefined) return undefined;
  const words = t().catalogueWords;
  return Object.hasOwn(words, english) ? words[english] : english;
}
