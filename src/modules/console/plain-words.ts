import { minorDigits } from '../../platform/money.ts';
import { money } from './formats.ts';
import { t } from './console-lang.ts';
import type { ConsoleMessages } from '../i18n/i18n.ts';

// The console speaks to organisers, not to API clients: the event document's validation messages
// (written for the machine API, naming JSON paths, patterns and field names) are said again here in
// plain words before a form shows them. Anything not recognised is still shown, tidied.

/** Field names of the event document as an organiser knows them. */
const FIELD_WORDS: Record<string, (m: ConsoleMessages) => string> = {
  starts_at: (m) => m.fwStartsAt,
  ends_at: (m) => m.fwEndsAt,
  sales_start_at: (m) => m.fwSalesStartAt,
  sales_end_at: (m) => m.fwSalesEndAt,
  percent_off: (m) => m.fwPercentOff,
  amount_off: (m) => m.fwAmountOff,
  max_per_order: (m) => m.fwMaxPerOrder,
  max_uses: (m) => m.fwMaxUses,
  valid_from: (m) => m.fwValidFrom,
  valid_until: (m) => m.fwValidUntil,
  ticket_types: (m) => m.fwTicketTypes,
  tax_rate_bp: (m) => m.fwTaxRate,
  checkin_lists: (m) => m.fwCheckinLists,
  discount_codes: (m) => m.fwDiscountCodes,
};

/** Messages for the patterns the schema uses (a pattern itself means nothing to an organiser). */
const PATTERNS: Record<string, (m: ConsoleMessages) => string> = {
  '^[a-z]{3}$': (m) => m.pwCurrencyCode,
  '^[a-z0-9][a-z0-9-]{0,62}$': (m) => m.pwSlug,
  '^[A-Za-z0-9_-]{1,64}$': (m) => m.pwKey,
  '^[A-Z0-9-]{4,32}$': (m) => m.pwCode,
};

const THINGS: Record<string, (m: ConsoleMessages) => string> = {
  audience: (m) => m.pwThingAudience,
  good: (m) => m.pwThingGood,
  'ticket type': (m) => m.pwThingTicketType,
  session: (m) => m.pwThingSession,
  portal: (m) => m.pwThingPortal,
  'check-in list': (m) => m.pwThingCheckinList,
};

type Say = (r: RegExpExecArray, m: ConsoleMessages) => string;

const RULES: Array<[RegExp, Say]> = [
  [/^is required$/, (_, m) => m.pwFillIn],
  [/^must match pattern "(.*)"$/, (r, m) => PATTERNS[r[1]!]?.(m) ?? m.pwNotExpected],
  [/^must match format "date-time"$/, (_, m) => m.pwDateTime],
  [/^must match format "email"$/, (_, m) => m.pwEmail],
  [/^must match format "uri"$/, (_, m) => m.pwUri],
  [/^must NOT have fewer than 1 characters?$/, (_, m) => m.pwFillIn],
  [/^must NOT have fewer than (\d+) characters$/, (r, m) => m.pwAtLeastChars(r[1]!)],
  [/^must NOT have more than (\d+) characters$/, (r, m) => m.pwAtMostChars(r[1]!)],
  [/^must NOT have more than (\d+) items$/, (r, m) => m.pwAtMostItems(r[1]!)],
  [/^must be >= (-?\d+)$/, (r, m) => (r[1] === '0' ? m.pwZeroOrMore : m.pwOrMore(r[1]!))],
  [/^must be > (-?\d+)$/, (r, m) => m.pwMoreThan(r[1]!)],
  [/^must be <= (-?\d+)$/, (r, m) => m.pwOrLess(r[1]!)],
  [/^must be < (-?\d+)$/, (r, m) => m.pwLessThan(r[1]!)],
  [/^must be integer$/, (_, m) => m.pwWholeNumber],
  [/^must be a whole number$/, (_, m) => m.pwWholeNumber],
  [/^must be (?:number|string|boolean|object|array)$/, (_, m) => m.pwNotUnderstood],
  [/^must be equal to one of the allowed values$/, (_, m) => m.pwChooseOffered],
  [/^unknown key$/, (_, m) => m.pwUnknownKey],
  [/^is not a date and time$/, (_, m) => m.pwDateTime],
  [/^is not an amount \(like (.+)\)$/, (r, m) => m.pwAmountLike(r[1]!)],
  [/^is before (\w+)$/, (r, m) => m.pwMustBeAfter(words(r[1]!))],
  [/^is not before the end of sales.*$/, (_, m) => m.pwSalesOpenBeforeEnd],
  [/^is after (\w+)$/, (r, m) => m.pwMustBeBefore(words(r[1]!))],
  [/^"(.+)" is not an IANA timezone$/, (_, m) => m.pwTimezone],
  [/^"(.+)" is used twice$/, (r, m) => m.pwUsedTwice(r[1]!)],
  [/^"(.+)" is reserved$/, (r, m) => m.pwReserved(r[1]!)],
  [/^an event with slug "(.+)" (?:exists|was just created)$/, (_, m) => m.pwSlugTaken],
  [/^give exactly one of percent_off and amount_off$/, (_, m) => m.pwOneOfPercentAmount],
  [
    /^no (audience|good|ticket type|session|portal|check-in list) "(.+)" in this event$/,
    (r, m) => m.pwNoSuchThing(THINGS[r[1]!]!(m), r[2]!),
  ],
  [/^the event does not sell in (\w+)$/, (r, m) => m.pwNotSoldIn(r[1]!.toUpperCase())],
  [/^needs a rate for (\w+)$/, (r, m) => m.pwNeedsRate(r[1]!.toUpperCase())],
  [/^use lowercase letters, digits and dashes(?: for the slug)?$/, (_, m) => m.pwSlug],
  [/^a venue with an address needs a name$/, (_, m) => m.pwVenueName],
  [/^must be at least (\d+) characters$/, (r, m) => m.pwPasswordAtLeast(r[1]!)],
  [/^must be at most (\d+) characters$/, (r, m) => m.pwPasswordAtMost(r[1]!)],
  // the users module's refusals, by their English text
  [/^That email and password do not match\.$/, (_, m) => m.svcBadCredentials],
  [/^Too many sign-in attempts\. Wait a minute, then try again\.$/, (_, m) => m.svcTooManySignIns],
  [/^That code is not right\. Codes change every 30 seconds\.$/, (_, m) => m.svcCodeWrong],
  [/^You have an account already: enter its password to accept\.$/, (_, m) => m.svcHaveAccount],
  [/^That is not your password$/, (_, m) => sentence(m.notYourPassword)],
  // the refund form's own checks
  [/^Enter an amount such as 12\.50$/, (_, m) => sentence(m.rfAmountSuch)],
  [/^Enter an amount above zero$/, (_, m) => sentence(m.rfAboveZero)],
  [/^Choose at least one ticket$/, (_, m) => sentence(m.rfChooseTicket)],
  [/^Enter the amount to refund$/, (_, m) => sentence(m.rfEnterAmount)],
  [/^To refund part of the balance, choose/, (_, m) => sentence(m.rfPartOrAll)],
  [/^Tickets become void only with/, (_, m) => sentence(m.rfVoidOnlyChosen)],
  [/^Keep the reason under 500 characters$/, (_, m) => sentence(m.rfReasonLong)],
  // the webhooks service's refusals
  [/^is not a URL$/, (_, m) => m.whPwNotUrl],
  [/^must be an http or https URL$/, (_, m) => m.whPwHttp],
  [/^must not carry a user name or password$/, (_, m) => m.whPwNoUser],
  [/^is longer than 2,000 characters$/, (_, m) => m.whPwTooLong],
  [/^unknown event type \(known: /, (_, m) => m.whPwUnknownType],
  // the waiting list's refusals
  [/^Not enough units are free for this entry now, or it is not waiting$/, (_, m) => m.wlPwNothingToOffer],
  [/^The entry is (\w+): only a waiting or offered entry can be removed$/, (r, m) => m.wlPwClosed(entryStatus(r[1]!, m))],
  [/^This event's waiting list is not enabled$/, (_, m) => m.wlPwOff],
  // the invoicing settings' and the invoice address's checks, and re-issuing's refusals
  [/^letters, digits and dashes, at most 16$/, (_, m) => m.ivcPwPrefix],
  [/^is empty$/, (_, m) => m.pwFillIn],
  [/^(?:"[^"]*" )?is not an ISO 3166-1 country code$/, (_, m) => m.ivcPwCountry],
  [/^an invoice needs the issuer's VAT ID or tax number$/, (_, m) => m.ivcPwVatOrTax],
  [/^is not a VAT ID$/, (_, m) => m.ivcPwNotVatId],
  [/^does not start with (\w+) \(the country's prefix\)$/, (r, m) => m.ivcPwVatPrefix(r[1]!)],
  [/^is not in the format of a VAT ID of (\w+)$/, (r, m) => m.ivcPwVatFormat(r[1]!)],
  [/^is longer than ([\d,]+) characters$/, (r, m) => m.ivcPwLonger(r[1]!)],
  [/^Only a paid order has an invoice to issue again$/, (_, m) => m.ivcPwNotPaidReissue],
  [/^A refund has credited part of this invoice; it cannot be issued again$/, (_, m) => m.ivcPwCredited],
  [/^Only a paid order can be invoiced$/, (_, m) => m.ivcPwNotPaid],
  [/^This order has its invoice already$/, (_, m) => m.ivcPwAlready],
  // the codes generator's own checks
  [/^must be a number from 1 to 10,000$/, (_, m) => m.pwCount],
  [/^letters, digits, - and _ only$/, (_, m) => m.pwPrefix],
  [/^must be a percent from 1 to 100$/, (_, m) => m.pwPercent],
];

/** A waiting list entry's status in a sentence ("accepted", "angenommen"). */
function entryStatus(status: string, m: ConsoleMessages): string {
  const said: Record<string, string> = {
    waiting: m.wlWaiting,
    offered: m.wlOffered,
    accepted: m.wlAccepted,
    expired: m.wlExpired,
    removed: m.wlRemoved,
  };
  return Object.hasOwn(said, status) ? said[status]!.toLowerCase() : status;
}

function words(name: string): string {
  return FIELD_WORDS[name]?.(t()) ?? name.replace(/_/g, ' ');
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
    const r = re.exec(message.trim());
    if (r) return say(r, t());
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
