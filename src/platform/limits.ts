/**
 * Numeric bounds shared by the checkout and the inputs that feed it (the order create body, the
 * management API, the account file). Every number that reaches the checkout's arithmetic is held
 * to these before it is used, so each figure an order carries is exact in a double and fits the
 * column it is written to; what is past them is refused with a 4xx, never left to the database.
 */

/** Largest PostgreSQL `integer`: quantities, capacities, stock taken and use counts are stored as one. */
export const PG_INT_MAX = 2_147_483_647;

/**
 * The most units of one item an order line takes, and the largest per-order maximum an organiser
 * can set. A type without a maximum of its own is held to this one: ten thousand tickets in one
 * order is already far beyond any real basket, and every ticket is minted as a row (with its own
 * page in the tickets PDF) in the transaction that pays the order, so an unbounded line would let
 * one free order mint millions of rows. A larger quantity of a type that has stock is answered as
 * any other quantity beyond what is left (409 sold_out) when it is; otherwise 422 invalid_items.
 */
export const MAX_LINE_QUANTITY = 10_000;

/** The largest capacity an item can be given (inventory.capacity is an integer; `taken` never passes it). */
export const MAX_CAPACITY = 2_000_000_000;

/**
 * The largest price, or fixed discount, an organiser can set, in minor units: one hundred
 * million in the main unit of a two-digit currency.
 */
export const MAX_PRICE_CENTS = 10_000_000_000;

/**
 * The largest donation one line takes, in minor units (one million in the main unit of a
 * two-digit currency; contract section 10). Beyond it a typo, or a probe of the arithmetic,
 * not a gift.
 */
export const MAX_DONATION_CENTS = 100_000_000;

/**
 * The largest figure one order may carry (a line's total or tax, the subtotal), in minor units:
 * ten billion in the main unit of a two-digit currency, a hundred lines at the largest price.
 * Far below 2^53, so the checkout's sums of such figures are exact in a double, and converted at
 * the largest exchange rate (MAX_FX_RATE) an order's figures still fit the reports' bigint.
 */
export const MAX_ORDER_CENTS = 1_000_000_000_000;

/**
 * Exchange rates an event records (event-currency units per order-currency unit). The widest
 * real pair is within a factor of 10^5. orders.fx_rate is numeric(20, 10), which keeps four
 * significant digits of 10^-6 and nothing of 10^-11, and refuses 10^10; an order's figures
 * (at most MAX_ORDER_CENTS) times 10^6 still fit a bigint in the reports.
 */
export const MIN_FX_RATE = 0.000001;
export const MAX_FX_RATE = 1_000_000;
