// Slugs and keys made from what the organiser typed as a name, so the console never asks for an
// identifier first: "Sommerfest Köln 2027" becomes `sommerfest-koeln-2027`.

const SPELLED: Record<string, string> = { ä: 'ae', ö: 'oe', ü: 'ue', ß: 'ss', æ: 'ae', ø: 'o', œ: 'oe', å: 'aa', ł: 'l', đ: 'd' };

/** Lowercase letters, digits and single dashes, at most `max` long; '' when nothing usable is left. */
export function slugify(name: string, max = 63): string {
  const spelled = name
    .toLowerCase()
    .replace(/[äöüßæøœåłđ]/g, (c) => SPELLED[c] ?? c)
    .normalize('NFKD')
    .replace(/\p{M}/gu, '');
  return spelled
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+/, '')
    .slice(0, max)
    .replace(/-+$/, '');
}

/** `base`, or `base-2`, `base-3`... whichever is not in `taken`, kept within `max` characters. */
export function freeKey(base: string, taken: ReadonlySet<string>, max = 63): string {
  const root = base || 'item';
  if (!taken.has(root)) return root;
  for (let n = 2; ; n++) {
    const tail = `-${n}`;
    const key = `${root.slice(0, max - tail.length).replace(/-+$/, '')}${tail}`;
    if (!taken.has(key)) return key;
  }
}
