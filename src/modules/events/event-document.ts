import type { InvoicingSettings } from '../../platform/db/schema.ts';
import type { SeatingIn } from './seating-plan.ts';

/*
 * The account file, as typed by the contract's JSON Schema (src/modules/events/account-file.schema.json).
 * Types only: the checks are in account-file.schemas.ts, what writes an event is event-writer.repo.ts.
 */
export type Money = number;
export interface TicketTypeIn {
  key: string;
  name: string;
  price: Money;
  prices?: Record<string, Money>;
  capacity?: number | null;
  max_per_order?: number | null;
  position?: number;
  on_sale?: boolean;
  archived?: boolean;
  audience?: string;
  requires_session?: boolean;
  tax_rate_bp?: number;
  group_discounts?: Array<{ min_quantity: number; percent_off: number }>;
  includes?: Array<{ good: string; quantity?: number }>;
}
export interface GoodIn {
  key: string;
  name: string;
  price: Money;
  prices?: Record<string, Money>;
  capacity?: number | null;
  on_sale?: boolean;
  tax_rate_bp?: number;
}
export interface SessionIn {
  key: string;
  name?: string;
  starts_at: string;
  ends_at?: string;
  capacity?: number | null;
  on_sale?: boolean;
  ticket_types?: string[];
}
export interface OrderLineIn {
  kind: 'tickets' | 'sessions' | 'goods' | 'donations';
  ref: string;
  quantity: number;
  unit_price: Money;
  tax?: Money;
  tax_rate_bp?: number;
  attendees?: string[];
  checked_in?: string[];
}
export interface PaymentIn {
  rail: 'card' | 'wallet' | 'sandbox' | 'terminal';
  amount: Money;
  at: string;
  fee?: number | null;
  fee_currency?: string;
  platform_fee?: Money;
  provider_ref?: string;
}
export interface OrderIn {
  ref: string;
  status: 'paid' | 'pending' | 'refunded' | 'canceled';
  currency?: string;
  fx_rate?: number;
  name?: string;
  email?: string;
  audience?: string;
  portal?: string;
  created_at: string;
  paid_at?: string;
  canceled_at?: string;
  expires_at?: string;
  lines: OrderLineIn[];
  discounts?: Array<{ code: string; amount: Money }>;
  payments?: PaymentIn[];
  refunds?: Array<{ amount: Money; at: string; status?: 'succeeded' | 'failed' }>;
  answers?: Array<{ question: string; answer: string }>;
}
export interface EventIn {
  slug: string;
  name: string;
  series?: string;
  currency: string;
  currencies?: string[];
  fx_rates?: Record<string, number>;
  timezone: string;
  starts_at: string;
  ends_at?: string;
  sales_end_at?: string;
  payment_expires_at?: string;
  tax_mode?: 'inclusive' | 'exclusive';
  description?: string;
  venue?: { name: string; address?: string; map_url?: string };
  locale?: string;
  /** contract section 11: a draft is invisible to buyers; default published */
  status?: 'draft' | 'published';
  sales_start_at?: string;
  /** contract section 14 */
  invoice_address?: 'optional' | 'required' | 'off';
  archived?: boolean;
  seating?: SeatingIn;
  /** contract section 13: freed units of a sold-out type go to the list first; default off, 1440 minutes */
  waiting_list?: { enabled?: boolean; offer_minutes?: number };
  /** contract section 13: the on-sale queue */
  queue?: { enabled?: boolean; admit_per_minute?: number };
  /** contract section 15: what buyers may change themselves; absent, nothing */
  self_service?: { edit_until?: string; transfer?: boolean; cancel_until?: string; cancel_fee_percent?: number };
  ticket_types?: TicketTypeIn[];
  goods?: GoodIn[];
  sessions?: SessionIn[];
  donations?: Array<{ key: string; name: string; on_sale?: boolean }>;
  audiences?: Array<{ key: string; name: string }>;
  portals?: Array<{ key: string; name: string; audience?: string }>;
  discount_codes?: Array<{
    code: string;
    percent_off?: number;
    amount_off?: Money;
    max_uses?: number | null;
    ticket_types?: string[];
  }>;
  checkin_lists?: Array<{ key: string; name: string; ticket_types?: string[] }>;
  saved_reports?: Array<{ name: string; query: string }>;
  orders?: OrderIn[];
}
export interface AccountFile {
  account: {
    slug: string;
    name: string;
    region?: string;
    payments?: {
      mode: 'none' | 'sandbox' | 'own_key' | 'platform';
      provider?: 'sandbox' | 'stripe';
      api_key?: string;
      api_base?: string;
      platform_fee_bp?: number;
      platform_fee_fixed?: Money;
    };
    plan?: { hide_powered_by?: boolean };
    /** contract section 14 */
    invoicing?: InvoicingSettings;
    /** contract section 15: wallet pass keys, stored sealed by the wallet module, never exported */
    wallet?: {
      apple?: { pass_type_id: string; team_id: string; certificate_pem: string; key_pem: string; wwdr_pem: string };
      google?: { issuer_id: string; service_account_email: string; private_key_pem: string };
    };
  };
  /** a token by its secret, or as exported: the SHA-256 of its secret */
  tokens?: Array<{
    name: string;
    secret?: string;
    secret_sha256?: string;
    capabilities: string[];
    scopes?: string[];
    events?: string[];
  }>;
  /** a person with a password, or as exported: the stored hash */
  users?: Array<{
    email: string;
    name?: string;
    role: 'owner' | 'manager' | 'door' | 'viewer';
    password?: string;
    password_hash?: string;
  }>;
  series?: Array<{ slug: string; name: string }>;
  html_templates?: Array<{
    key: string;
    name: string;
    kind: 'layout' | 'component';
    channel: 'web' | 'email' | 'attendee_hub';
    body: string;
  }>;
  themes?: Array<{ name: string; is_default?: boolean; settings?: Record<string, unknown> }>;
  events?: EventIn[];
}

/** How long a waiting list's offer holds its units when the document does not say (contract section 13). */
export const DEFAULT_OFFER_MINUTES = 1440;

/**
 * An event's configuration as one document: the account file's event object (contract section
 * 6), without orders. The console, the management API and `admit import` write an event through
 * the same code (event-writer.repo.ts); the importer's validation is the document's validation.
 */
export type EventDocument = Omit<EventIn, 'orders'>;
