import type { ColumnType, Generated } from 'kysely';

/** Kysely table types; keep in step with migrations/*.sql. */
type Timestamp = ColumnType<Date, Date | string, Date | string>;
/** A timestamptz column with a database default. */
type GenTimestamp = ColumnType<Date, Date | string | undefined, Date | string>;
type Json<T> = ColumnType<T, string | T, string | T>;
/** A jsonb column with a database default. (Generated<> cannot wrap a ColumnType.) */
type GenJson<T> = ColumnType<T, string | T | undefined, string | T>;
type Money = number;

export interface AccountsTable {
  id: Generated<number>;
  slug: string;
  name: string;
  region: string | null;
  payments_mode: Generated<'none' | 'sandbox' | 'own_key' | 'platform'>;
  payments_provider: Generated<'sandbox' | 'stripe'>;
  payments_api_key: string | null;
  payments_api_base: string | null;
  platform_fee_bp: Generated<number>;
  platform_fee_fixed_cents: Generated<Money>;
  hide_powered_by_allowed: Generated<boolean>;
  created_at: GenTimestamp;
  /** contract section 14; null: the account issues no invoices (migration 0028) */
  invoicing: NullJson<InvoicingSettings>;
}

/** A nullable jsonb column (null by default). */
type NullJson<T> = ColumnType<T | null, string | T | null | undefined, string | T | null>;

export interface InvoiceIssuer {
  name: string;
  address: string;
  /** ISO 3166-1 alpha-2 */
  country: string;
  vat_id?: string;
  tax_number?: string;
}

export interface InvoicingSettings {
  enabled: boolean;
  issuer: InvoiceIssuer;
  number_prefix: string;
  business_only?: boolean;
}

/** The buyer's invoice address as the order keeps it (contract section 14). */
export interface InvoiceAddress {
  company?: string;
  name: string;
  street: string;
  postcode: string;
  city: string;
  /** ISO 3166-1 alpha-2 */
  country: string;
  vat_id?: string;
}

export interface ApiTokensTable {
  id: Generated<number>;
  account_id: number;
  name: string;
  token_hash: string;
  capabilities: Generated<string[]>;
  scopes: Generated<string[]>;
  event_slugs: string[] | null;
  created_at: GenTimestamp;
  last_used_at: Timestamp | null;
}

export interface SeriesTable {
  id: Generated<number>;
  account_id: number;
  slug: string;
  name: string;
}

export interface EventsTable {
  id: Generated<number>;
  account_id: number;
  slug: string;
  name: string;
  series_id: number | null;
  currency: string;
  currencies: string[];
  fx_rates: GenJson<Record<string, string>>;
  timezone: string;
  starts_at: Timestamp;
  ends_at: Timestamp | null;
  sales_end_at: Timestamp | null;
  payment_expires_at: Timestamp | null;
  tax_mode: Generated<'inclusive' | 'exclusive'>;
  description: string | null;
  venue: GenJson<EventVenue> | null;
  locale: Generated<string>;
  /** contract section 11: a draft is invisible to buyers */
  status: Generated<'draft' | 'published'>;
  /** the checkout opens then (null: open until sales end) */
  sales_start_at: Timestamp | null;
  /** off the lists; its orders and tickets stay reachable */
  archived: Generated<boolean>;
  /** contract section 13: the waiting list is offered on sold-out types */
  waiting_list_enabled: Generated<boolean>;
  /** how long an offer's pay link holds its units */
  waiting_list_offer_minutes: Generated<number>;
  /** contract section 14; null: the default (optional while the account issues invoices) */
  invoice_address: 'optional' | 'required' | 'off' | null;
  /** contract section 15: what a buyer may change on the order page; null: nothing */
  self_service: GenJson<SelfServiceRules> | null;
  /** contract section 13: the on-sale queue's settings, as given */
  queue: GenJson<{ enabled?: boolean; admit_per_minute?: number }> | null;
  created_at: GenTimestamp;
}

/** The event document's `self_service`, as given (dates as ISO strings). */
export interface SelfServiceRules {
  edit_until?: string;
  transfer?: boolean;
  cancel_until?: string;
  cancel_fee_percent?: number;
}

export interface EventVenue {
  name: string;
  address?: string;
  map_url?: string;
}

export interface InventoryTable {
  id: Generated<number>;
  account_id: number;
  event_id: number;
  capacity: number;
  taken: Generated<number>;
  /** someone waits for these units: the public sees them sold out (migration 0027) */
  waitlisted: Generated<boolean>;
  /** a seated type's: counts the statements that changed its seats' holds or plan (migration 0034) */
  seat_version: Generated<number>;
}

/** one person waiting for a ticket type (migration 0027) */
export interface WaitingListEntriesTable {
  id: Generated<number>;
  account_id: number;
  event_id: number;
  ticket_type_id: number;
  quantity: number;
  email: string;
  name: string;
  locale: string | null;
  status: Generated<'waiting' | 'offered' | 'accepted' | 'expired' | 'removed'>;
  order_id: number | null;
  leave_secret: string;
  created_at: Timestamp;
  offered_at: Timestamp | null;
  expires_at: Timestamp | null;
  updated_at: Timestamp;
}

/** a message to an event's attendees (migration 0031) */
export interface MessagesTable {
  id: Generated<number>;
  account_id: number;
  event_id: number;
  subject: string;
  body: string;
  recipient_filter: GenJson<MessageFilter>;
  send_at: Timestamp;
  state: 'scheduled' | 'sending' | 'sent';
  created_by: string;
  created_at: Timestamp;
  queued_at: Timestamp | null;
  recipients: Generated<number>;
  sent_count: Generated<number>;
  failed_count: Generated<number>;
}

/** whom a message is for, as stored: ticket types by key (as given) and by id (as resolved) */
export interface MessageFilter {
  ticket_types?: string[];
  ticket_type_ids?: number[];
  status?: OrderStatus[];
  checked_in?: boolean;
}

/** one message's mail to one order (migration 0031) */
export interface MessageDeliveriesTable {
  message_id: number;
  order_id: number;
  account_id: number;
  status: Generated<'queued' | 'sent' | 'failed'>;
  sent_at: Timestamp | null;
  error: string | null;
}

/** units on paid orders per item, portal (0: none) and write shard; kept by triggers (migration 0009) */
export interface ItemSalesTable {
  event_id: number;
  kind: string;
  item_id: number;
  portal_id: number;
  shard: number;
  sold: number;
}

/** income figures of counted orders per local day and per quarter hour of either stamp; kept by triggers (migration 0009) */
export interface IncomeCountersTable {
  event_id: number;
  stamp: 'paid' | 'started';
  grain: 'day' | 'quarter';
  at: Date;
  codes_key: string;
  shard: number;
  orders: number;
  gross_cents: number;
  discount_cents: number;
  refund_cents: number;
  refunded_orders: number;
  tax_cents: number;
  fees_cents: number;
  platform_fee_cents: number;
  unpriced_payments: number;
  /** tickets of the paid orders counted here (migration 0019) */
  units: Generated<number>;
}

/** an event's net income by write shard, for the events list (migration 0039) */
export interface EventIncomeTable {
  event_id: number;
  shard: number;
  net_cents: number;
}

/** the orders report's figures by its axes (migration 0021), in the order's own currency */
export interface OrderReportCountersTable {
  event_id: number;
  stamp: 'paid' | 'started';
  grain: 'day' | 'quarter';
  at: Date;
  currency: string;
  status: string;
  /** 0: no audience */
  audience_id: number;
  codes_key: string;
  took_money: boolean;
  shard: number;
  orders: number;
  units: number;
  gross_cents: number;
  discount_cents: number;
  refund_cents: number;
}

export interface KeyedEventChild {
  id: Generated<number>;
  account_id: number;
  event_id: number;
  key: string;
  name: string;
}

export interface AudiencesTable extends KeyedEventChild {
  archived_at: Timestamp | null;
}

export interface PortalsTable extends KeyedEventChild {
  audience_id: number | null;
  archived_at: Timestamp | null;
}

export interface GroupDiscount {
  min_quantity: number;
  percent_off: number;
}

export interface TicketTypesTable extends KeyedEventChild {
  price_cents: Money;
  prices: GenJson<Record<string, number>>;
  capacity: number | null;
  inventory_id: number | null;
  max_per_order: number | null;
  position: Generated<number>;
  on_sale: Generated<boolean>;
  archived: Generated<boolean>;
  audience_id: number | null;
  requires_session: Generated<boolean>;
  tax_rate_bp: Generated<number>;
  group_discounts: GenJson<GroupDiscount[]>;
  /** sold by seat (migration 0025): its capacity is its number of unblocked seats */
  seated: Generated<boolean>;
}

export interface GoodsTable extends KeyedEventChild {
  price_cents: Money;
  prices: GenJson<Record<string, number>>;
  capacity: number | null;
  inventory_id: number | null;
  position: Generated<number>;
  on_sale: Generated<boolean>;
  tax_rate_bp: Generated<number>;
  archived_at: Timestamp | null;
}

export interface TicketTypeIncludesTable {
  account_id: number;
  ticket_type_id: number;
  good_id: number;
  quantity: Generated<number>;
}

export interface SessionsTable {
  id: Generated<number>;
  account_id: number;
  event_id: number;
  key: string;
  name: Generated<string>;
  starts_at: Timestamp;
  ends_at: Timestamp | null;
  capacity: number | null;
  inventory_id: number | null;
  position: Generated<number>;
  on_sale: Generated<boolean>;
  archived_at: Timestamp | null;
}

export interface SessionTicketTypesTable {
  account_id: number;
  session_id: number;
  ticket_type_id: number;
}

export interface DonationsTable extends KeyedEventChild {
  position: Generated<number>;
  on_sale: Generated<boolean>;
  archived_at: Timestamp | null;
}

export interface DiscountCodesTable {
  id: Generated<number>;
  account_id: number;
  event_id: number;
  code: string;
  percent_off: number | null;
  amount_off_cents: Money | null;
  max_uses: number | null;
  uses: Generated<number>;
  ticket_type_ids: number[] | null;
  valid_until: Timestamp | null;
  disabled_at: Timestamp | null;
}

export interface QuestionsTable {
  id: Generated<number>;
  account_id: number;
  event_id: number;
  key: string;
  label: string;
  scope: 'order' | 'attendee';
  required: Generated<boolean>;
  position: Generated<number>;
}

export type OrderStatus = 'pending' | 'paid' | 'refunded' | 'canceled';
export type LineKind = 'tickets' | 'sessions' | 'goods' | 'donations';

export interface Answer {
  question: string;
  answer: string;
}

export interface ItemAnswer {
  ticket_type_id: number;
  position: number;
  answers: Answer[];
}

export interface OrdersTable {
  id: Generated<number>;
  account_id: number;
  event_id: number;
  ref: string;
  status: OrderStatus;
  currency: string;
  /** exact decimal, as a string */
  fx_rate: ColumnType<string, string | number | undefined, string | number>;
  subtotal_cents: Money;
  discount_cents: Generated<Money>;
  total_cents: Money;
  refunded_cents: Generated<Money>;
  /** tickets on the order (sum of its ticket lines), kept for reports */
  ticket_units: Generated<number>;
  /** tax of all its lines, kept for reports */
  tax_cents: Generated<Money>;
  /** kept by the payments trigger (migration 0008): a succeeded payment of more than zero exists */
  took_money: Generated<boolean>;
  /** established processor fees in the event currency (payments trigger) */
  fees_cents: Generated<Money>;
  /** platform fees of the succeeded payments (payments trigger) */
  platform_fees_cents: Generated<Money>;
  /** succeeded payments without an established fee in the event currency (payments trigger) */
  unpriced_payments: Generated<number>;
  name: string | null;
  email: string | null;
  audience_id: number | null;
  portal_id: number | null;
  channel: Generated<'api' | 'web' | 'import' | 'door' | 'console'>;
  access_secret: string;
  qr_token: string;
  codes_key: Generated<string>;
  answers: GenJson<Answer[]>;
  item_answers: GenJson<ItemAnswer[]>;
  /** the language the order was bought in (BCP 47); null for API and imported orders */
  locale: string | null;
  created_at: Timestamp;
  paid_at: Timestamp | null;
  canceled_at: Timestamp | null;
  refunded_at: Timestamp | null;
  expires_at: Timestamp | null;
  /** the buyer's invoice address (migration 0028) */
  invoice_address: NullJson<InvoiceAddress>;
}

export interface OrderLinesTable {
  id: Generated<number>;
  account_id: number;
  order_id: number;
  event_id: number;
  kind: LineKind;
  ticket_type_id: number | null;
  good_id: number | null;
  session_id: number | null;
  donation_id: number | null;
  inventory_id: number | null;
  name: string;
  quantity: number;
  unit_price_cents: Money;
  total_cents: Money;
  tax_rate_bp: Generated<number>;
  tax_cents: Generated<Money>;
  included: Generated<boolean>;
  position: Generated<number>;
}

export interface OrderDiscountsTable {
  id: Generated<number>;
  account_id: number;
  order_id: number;
  discount_code_id: number | null;
  code: string;
  amount_cents: Money;
  position: Generated<number>;
}

export interface TicketsTable {
  id: Generated<number>;
  account_id: number;
  event_id: number;
  order_id: number;
  order_line_id: number;
  ticket_type_id: number;
  session_id: number | null;
  ref: string;
  attendee_name: string | null;
  qr_token: string;
  status: Generated<'valid' | 'voided'>;
  position: Generated<number>;
  created_at: Timestamp;
  /** xid8 of the transaction that last changed what a scanner knows (migration 0016) */
  sync_xid: Generated<string>;
  /** the seat it admits to (migration 0025) */
  seat_guid: Generated<string | null>;
  /** the attendee's email, given by the buyer or a transfer (migration 0030) */
  attendee_email: Generated<string | null>;
  /** a transferred ticket's own page (capability URL); null while the order's buyer holds it */
  holder_secret: Generated<string | null>;
  transferred_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
}

/** An event's on-sale queue (migration 0033): the lottery done, the last place given. */
export interface EventQueuesTable {
  event_id: number;
  drawn_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
  last_place: Generated<number>;
}

/** One browser in an event's queue (migration 0033). */
export interface QueueVisitorsTable {
  id: Generated<number>;
  event_id: number;
  visitor_hash: string;
  arrived_at: Timestamp;
  place: ColumnType<number | null, number | null | undefined, number | null>;
  admitted_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
}

/** An event's `seating` as its document gave it (migration 0025). */
export interface SeatingPlansTable {
  event_id: number;
  account_id: number;
  plan: GenJson<Record<string, unknown>>;
  categories: GenJson<Record<string, string>>;
  blocked: GenJson<string[]>;
}

/** One seat of an event's plan, in plan order. */
export interface EventSeatsTable {
  id: Generated<number>;
  account_id: number;
  event_id: number;
  seat_guid: string;
  ordinal: number;
  zone: string;
  row_number: string;
  seat_number: string;
  label: string;
  category: string;
  ticket_type_id: number | null;
  blocked: Generated<boolean>;
  x: Generated<number>;
  y: Generated<number>;
  radius: number | null;
}

/** A seat an order holds or bought; live while released_at is null (one live row per seat). */
export interface OrderSeatsTable {
  id: Generated<number>;
  account_id: number;
  event_id: number;
  order_id: number;
  line_position: number;
  seat_guid: string;
  released_at: Timestamp | null;
}

export type Rail = 'card' | 'wallet' | 'sandbox' | 'terminal';

export interface PaymentsTable {
  id: Generated<number>;
  account_id: number;
  order_id: number;
  rail: Rail;
  provider: 'sandbox' | 'stripe' | 'import';
  status: 'pending' | 'succeeded' | 'failed' | 'canceled';
  amount_cents: Money;
  currency: string;
  provider_ref: string | null;
  fee_cents: Money | null;
  fee_currency: string | null;
  platform_fee_cents: Generated<Money>;
  simulated: Generated<boolean>;
  created_at: Timestamp;
  succeeded_at: Timestamp | null;
}

export interface RefundsTable {
  id: Generated<number>;
  account_id: number;
  order_id: number;
  payment_id: number | null;
  amount_cents: Money;
  currency: string;
  status: 'pending' | 'succeeded' | 'failed';
  provider_ref: string | null;
  simulated: Generated<boolean>;
  error: string | null;
  created_at: Timestamp;
  completed_at: Timestamp | null;
  /** why, as the person gave it (partial refunds from the console) */
  reason: string | null;
  /** the tickets this refund voids; null: all of the order's (a refund of the whole balance) */
  ticket_ids: number[] | null;
  /** the console form's one-time key: the same form sent twice refunds once */
  request_key: string | null;
}

export interface OrderLogTable {
  id: Generated<number>;
  account_id: number;
  order_id: number;
  action: string;
  data: GenJson<Record<string, unknown>>;
  created_at: Timestamp;
}

export interface CheckinListsTable {
  id: Generated<number>;
  account_id: number;
  event_id: number;
  key: string;
  name: string;
  ticket_type_ids: number[] | null;
  checked_in_count: Generated<number>;
  created_at: GenTimestamp;
  updated_at: GenTimestamp;
  archived_at: Timestamp | null;
}

export interface CheckinsTable {
  id: Generated<number>;
  account_id: number;
  checkin_list_id: number;
  ticket_id: number;
  qr_code_scanned: Generated<boolean>;
  online: Generated<boolean>;
  /** when the scan happened (an offline scan keeps its own time) */
  created_at: Timestamp;
  /** offline uploads: the scanning device and its id for the scan (idempotency) */
  device: string | null;
  client_id: string | null;
  /** a scan that is not the admission: the ticket was already admitted, or cannot be */
  conflict: Generated<boolean>;
  reason: 'already_checked_in' | 'not_checkable' | null;
  uploaded_at: Timestamp | null;
}

export interface ImagesTable {
  id: Generated<number>;
  account_id: number;
  content_type: string;
  bytes: Uint8Array;
  sha256: string;
  source_url: string | null;
  created_at: GenTimestamp;
}

export interface HtmlTemplatesTable {
  id: Generated<number>;
  account_id: number;
  key: string;
  name: string;
  kind: 'layout' | 'component';
  channel: 'web' | 'email' | 'attendee_hub';
  body: string;
  created_at: GenTimestamp;
}

export interface ThemesTable {
  id: Generated<number>;
  account_id: number;
  name: string;
  is_default: Generated<boolean>;
  settings: GenJson<Record<string, unknown>>;
  logo_image_id: number | null;
  banner_image_id: number | null;
  background_image_id: number | null;
  created_at: GenTimestamp;
  updated_at: GenTimestamp;
  deleted_at: Timestamp | null;
}

export interface SavedReportsTable {
  id: Generated<number>;
  account_id: number;
  event_id: number;
  name: string;
  query: string;
  created_at: GenTimestamp;
}

export interface IdempotencyKeysTable {
  account_id: number;
  token_id: number;
  key: string;
  order_id: number | null;
  created_at: GenTimestamp;
}

export interface OutboxTable {
  id: Generated<number>;
  account_id: number | null;
  kind: string;
  payload: Json<Record<string, unknown>>;
  status: Generated<'pending' | 'sent' | 'failed'>;
  attempts: Generated<number>;
  next_attempt_at: GenTimestamp;
  last_error: string | null;
  created_at: GenTimestamp;
  sent_at: Timestamp | null;
}

export interface RateLimitsTable {
  key: string;
  window_start: Timestamp;
  count: Generated<number>;
}

export interface AppSecretsTable {
  name: string;
  value: string;
  created_at: GenTimestamp;
}

/** The last transaction that changed an account's catalogue or tokens (migrations 0037, 0038; written by triggers only). */
export interface CatalogueVersionsTable {
  account_id: number;
  changed_xid: string;
}

export interface SchemaMigrationsTable {
  version: number;
  name: string;
  applied_at: GenTimestamp;
}

export type Role = 'owner' | 'manager' | 'door' | 'viewer';

export interface UsersTable {
  id: Generated<number>;
  email: string;
  name: Generated<string>;
  password_hash: string | null;
  totp_secret: string | null;
  totp_enabled: Generated<boolean>;
  created_at: GenTimestamp;
  password_changed_at: Timestamp | null;
  /** the console language the person chose; null follows the browser */
  language: Generated<string | null>;
}

export interface MembershipsTable {
  user_id: number;
  account_id: number;
  role: Role;
  created_at: GenTimestamp;
}

export interface ConsoleSessionsTable {
  id: string;
  user_id: number;
  pending_totp: Generated<boolean>;
  created_at: GenTimestamp;
  last_seen_at: GenTimestamp;
  expires_at: Timestamp;
}

export interface InvitationsTable {
  id: Generated<number>;
  account_id: number;
  email: string;
  role: Role;
  token_hash: string;
  invited_by: number | null;
  created_at: GenTimestamp;
  expires_at: Timestamp;
  accepted_at: Timestamp | null;
}

export interface PasswordResetsTable {
  token_hash: string;
  user_id: number;
  created_at: GenTimestamp;
  expires_at: Timestamp;
  used_at: Timestamp | null;
}

export interface WebhookEndpointsTable {
  id: Generated<number>;
  account_id: number;
  url: string;
  events: Generated<string[]>;
  description: Generated<string>;
  enabled: Generated<boolean>;
  secret: string;
  previous_secret: string | null;
  previous_secret_until: Timestamp | null;
  failing_since: Timestamp | null;
  disabled_reason: string | null;
  created_at: GenTimestamp;
  updated_at: GenTimestamp;
}

export interface WebhookDeliveriesTable {
  id: Generated<number>;
  account_id: number;
  endpoint_id: number;
  type: string;
  subject: Json<Record<string, unknown>>;
  body: string | null;
  status: Generated<'pending' | 'succeeded' | 'failed'>;
  attempts: Generated<number>;
  last_status_code: number | null;
  next_attempt_at: GenTimestamp;
  leased_until: Timestamp | null;
  created_at: GenTimestamp;
  updated_at: GenTimestamp;
}

export interface WebhookAttemptsTable {
  id: Generated<number>;
  delivery_id: number;
  at: Timestamp;
  status_code: number | null;
  duration_ms: number;
  error: string | null;
  response_body: string | null;
}

export interface FormSubmissionsTable {
  nonce: string;
  account_id: number;
  order_id: number | null;
  created_at: GenTimestamp;
}

/** migration 0032: an account's wallet pass keys; `sealed` holds the PEMs, encrypted */
export interface WalletKeysTable {
  account_id: number;
  platform: 'apple' | 'google';
  identity: Json<Record<string, string>>;
  sealed: string;
  uploaded_at: GenTimestamp;
}

export interface InvoiceCountersTable {
  account_id: number;
  year: number;
  last_sequence: number;
}

export interface InvoicesTable {
  id: Generated<number>;
  account_id: number;
  order_id: number;
  kind: 'invoice' | 'credit_note';
  number: string;
  year: number;
  sequence: number;
  corrects_id: number | null;
  issued_at: Timestamp;
  currency: string;
  total_cents: Money;
  vat_cents: Money;
  locale: string;
  content: Json<Record<string, unknown>>;
  canceled_at: Timestamp | null;
}

export interface DB {
  accounts: AccountsTable;
  api_tokens: ApiTokensTable;
  users: UsersTable;
  webhook_endpoints: WebhookEndpointsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_attempts: WebhookAttemptsTable;
  memberships: MembershipsTable;
  console_sessions: ConsoleSessionsTable;
  invitations: InvitationsTable;
  password_resets: PasswordResetsTable;
  series: SeriesTable;
  events: EventsTable;
  inventory: InventoryTable;
  audiences: AudiencesTable;
  portals: PortalsTable;
  ticket_types: TicketTypesTable;
  goods: GoodsTable;
  ticket_type_includes: TicketTypeIncludesTable;
  sessions: SessionsTable;
  session_ticket_types: SessionTicketTypesTable;
  donations: DonationsTable;
  discount_codes: DiscountCodesTable;
  questions: QuestionsTable;
  orders: OrdersTable;
  invoices: InvoicesTable;
  invoice_counters: InvoiceCountersTable;
  wallet_keys: WalletKeysTable;
  order_lines: OrderLinesTable;
  order_discounts: OrderDiscountsTable;
  tickets: TicketsTable;
  event_queues: EventQueuesTable;
  queue_visitors: QueueVisitorsTable;
  seating_plans: SeatingPlansTable;
  event_seats: EventSeatsTable;
  order_seats: OrderSeatsTable;
  payments: PaymentsTable;
  refunds: RefundsTable;
  order_log: OrderLogTable;
  checkin_lists: CheckinListsTable;
  checkins: CheckinsTable;
  images: ImagesTable;
  html_templates: HtmlTemplatesTable;
  themes: ThemesTable;
  saved_reports: SavedReportsTable;
  idempotency_keys: IdempotencyKeysTable;
  outbox: OutboxTable;
  rate_limits: RateLimitsTable;
  schema_migrations: SchemaMigrationsTable;
  catalogue_versions: CatalogueVersionsTable;
  app_secrets: AppSecretsTable;
  item_sales: ItemSalesTable;
  income_counters: IncomeCountersTable;
  event_income: EventIncomeTable;
  order_report_counters: OrderReportCountersTable;
  form_submissions: FormSubmissionsTable;
  waiting_list_entries: WaitingListEntriesTable;
  messages: MessagesTable;
  message_deliveries: MessageDeliveriesTable;
}
