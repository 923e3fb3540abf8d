import { minorDigits } from '../../platform/money.ts';
import { money } from './formats.ts';

// The console speaks to organisers, not to API clients: the event document's validation messages
// (written for the machine API, naming JSON paths, patterns and field names) are said again here in
// plain words before a form shows them. Anything not recognised is still shown, tidied.

/** Field names of the event document as an organiser knows them. */
const FIELD_WORDS: Record<string, string> = {
  starts_at: 'the start',
  ends_at: 'the end',
  sales_start_at: 'the start of sales',
  sales_end_at: 'the end of sales',
  percent_off: 'a percentage off',
  amount_off: 'an amount off',
  max_per_order: 'the most per order',
  max_uses: 'the limit of uses',
  valid_from: 'the start of validity',
  valid_until: 'the end of validity',
  ticket_types: 'ticket types',
  tax_rate_bp: 'the tax rate',
  checkin_lists: 'check-in lists',
  discount_codes: 'discount codes',
};

/** Messages for the patterns the schema uses (a pattern itself means nothing to an organiser). */
const PATTERNS: Record<string, string> = {
  '^[a-z]{3}$': 'Use a three-letter currency code, like EUR or USD.',
  '^[a-z0-9][a-z0-9-]{0,62}$': 'Use lowercase letters, digits and dashes (at most 63), starting with a letter or digit.',
  '^[A-Za-z0-9_-]{1,64}$': 'Use letters, digits, dashes and underscores only (at most 64), no spaces.',
  '^[A-Z0-9-]{4,32}$': 'Use 4 to 32 capital letters, digits and dashes.',
};

const RULES: Array<[RegExp, (m: RegExpExecArray) => string]> = [
  [/^is required$/, () => 'Fill this in.'],
  [/^must match pattern "(.*)"$/, (m) => PATTERNS[m[1]!] ?? 'This is not in the form expected here.'],
  [/^must match format "date-time"$/, () => 'Enter a date and time.'],
  [/^must match format "email"$/, () => 'Enter an email address, like name@example.com.'],
  [/^must match format "uri"$/, () => 'Enter a full web address, starting with https://.'],
  [/^must NOT have fewer than 1 characters?$/, () => 'Fill this in.'],
  [/^must NOT have fewer than (\d+) characters$/, (m) => `Use at least ${m[1]} characters.`],
  [/^must NOT have more than (\d+) characters$/, (m) => `Keep it to ${m[1]} characters or fewer.`],
  [/^must NOT have more than (\d+) items$/, (m) => `At most ${m[1]} are allowed.`],
  [/^must be >= (-?\d+)$/, (m) => (m[1] === '0' ? 'Use 0 or more.' : `Use ${m[1]} or more.`)],
  [/^must be > (-?\d+)$/, (m) => `Use more than ${m[1]}.`],
  [/^must be <= (-?\d+)$/, (m) => `Use ${m[1]} or less.`],
  [/^must be < (-?\d+)$/, (m) => `Use less than ${m[1]}.`],
  [/^must be integer$/, () => 'Enter a whole number.'],
  [/^must be a whole number$/, () => 'Enter a whole number.'],
  [/^must be (?:number|string|boolean|object|array)$/, () => 'This value is not understood here.'],
  [/^must be equal to one of the allowed values$/, () => 'Choose one of the offered values.'],
  [/^unknown key$/, () => 'This field is not known here.'],
  [/^is not a date and time$/, () => 'Enter a date and time.'],
  [/^is not an amount \(like (.+)\)$/, (m) => `Enter an amount, like ${m[1]}.`],
  [/^is before (\w+)$/, (m) => `Must be after ${words(m[1]!)}.`],
  [/^is not before the end of sales.*$/, () => 'Sales must open before they end.'],
  [/^is after (\w+)$/, (m) => `Must be before ${words(m[1]!)}.`],
  [/^"(.+)" is not an IANA timezone$/, () => 'Choose a timezone from the list.'],
  [/^"(.+)" is used twice$/, (m) => `“${m[1]}” is already used; choose another.`],
  [/^"(.+)" is reserved$/, (m) => `“${m[1]}” is reserved; choose another.`],
  [/^an event with slug "(.+)" (?:exists|was just created)$/, () => 'Another event already has this address; choose another.'],
  [/^give exactly one of percent_off and amount_off$/, () => 'Give either a percentage off or an amount off (one of the two).'],
  [
    /^no (audience|good|ticket type|session|portal|check-in list) "(.+)" in this event$/,
    (m) => `There is no ${m[1]} “${m[2]}” in this event.`,
  ],
  [/^the event does not sell in (\w+)$/, (m) => `The event does not sell in ${m[1]!.toUpperCase()}.`],
  [/^needs a rate for (\w+)$/, (m) => `Give an exchange rate for ${m[1]!.toUpperCase()}.`],
  [/^use lowercase letters, digits and dashes$/, () => PATTERNS['^[a-z0-9][a-z0-9-]{0,62}$']!],
  [/^a venue with an address needs a name$/, () => 'Give the venue a name as well as its address.'],
];

function words(name: string): string {
  return FIELD_WORDS[name] ?? name.replace(/_/g, ' ');
}

/** "25.00 EUR" as the console writes money ("€25.00"). */
function amounts(text: string): string {
  return text.replace(/\b(\d+)(?:\.(\d+))? ([A-Z]{3})\b/g, (all, whole: string, frac: string | undefined, cur: string) => {
    const digits = minorDigits(cur.toLowerCase());
    if ((frac ?? '').length !== digits) return all;
    return money(Number(`${whole}${frac ?? ''}`), cur.toLowerCase());
  });
}

function sentence(text: string): string {
  const t = amounts(text.trim()).replace(/\b([a-z]+(?:_[a-z]+)+)\b/g, (w) => words(w));
  if (!t) return t;
  const first = t[0]!.toUpperCase() + t.slice(1);
  return /[.!?)]$/.test(first) ? first : `${first}.`;
}

/** One validation message in plain words. */
export function plainMessage(message: string): string {
  for (const [re, say] of RULES) {
    const m = re.exec(message.trim());
    if (m) return say(m);
  }
  return sentence(message);
}

/**
 * A message not tied to a field of the form (`$.ticket_types[0].price: must be >= 0`): the place
 * in words, then the message.
 */
export function plainGeneral(message: string): string {
  const m = /^\$?\.?([\w.[\]"-]*): (.*)$/s.exec(message);
  if (!m) return plainMessage(message);
  const place = m[1]!
    .replace(/\[(\d+)\]/g, (_, n: string) => ` ${Number(n) + 1}`)
    .split('.')
    .filter(Boolean)
    .map((p) => words(p.replace(/ \d+$/, '')) + (/ \d+$/.exec(p)?.[0] ?? ''))
    .join(', ');
  const said = plainMessage(m[2]!);
  return place ? `${place[0]!.toUpperCase()}${place.slice(1)}: ${said}` : said;
}

/** The messages of one field, in plain words, joined for display. */
export function plainList(messages: readonly string[] | undefined): string {
  return [...new Set((messages ?? []).map(plainMessage))].join(' ');
}
