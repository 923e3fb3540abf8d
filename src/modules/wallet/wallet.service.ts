import type { AppContext } from '../../platform/context.ts';
import type { OrderDocument } from '../orders/order-document.repo.ts';
import { seatText } from '../orders/seat-text.ts';
import { loadPageTheme } from '../themes/page-theme.service.ts';
import { applePass } from './apple-pass.ts';
import { googleSaveUrl } from './google-save.ts';
import { hexRgb, type PassTicket } from './pass-content.ts';
import { walletKeyRows } from './wallet-keys.repo.ts';
import { loadWalletKeys } from './wallet-keys.service.ts';

/**
 * Wallet passes of an order's tickets, reached through the order's capability URL like its PDFs
 * (pages/wallet.routes.ts). A ticket answers only under its own order's secret: the caller hands
 * in the order document loaded by that secret, and the ticket is looked up among its tickets. A
 * ticket passed on answers only under its holder's link (`/ticket/{secret}`): its QR code is theirs.
 */
export interface WalletLink {
  apple?: string;
  google?: string;
}

/** Which wallets an account signs for, from the rows' identities (no key is opened for this). */
async function configured(ctx: AppContext, accountId: number): Promise<{ apple: boolean; google: boolean }> {
  const rows = await walletKeyRows(ctx.db, accountId);
  return { apple: rows.some((r) => r.platform === 'apple'), google: rows.some((r) => r.platform === 'google') };
}

const ticketPath = (secret: string, ref: string) => `/o/${encodeURIComponent(secret)}/tickets/${encodeURIComponent(ref)}`;

/** A ticket the page's reader may add to a wallet: valid, and not passed on to someone else (its code is theirs). */
type LinkableTicket = { ref: string; status: string; transferred?: boolean };
const linkable = (t: LinkableTicket) => t.status === 'valid' && !t.transferred;

async function linksFor(
  ctx: AppContext,
  accountId: number,
  tickets: readonly LinkableTicket[],
  base: (ref: string) => string,
): Promise<Map<string, WalletLink>> {
  const links = new Map<string, WalletLink>();
  const valid = tickets.filter(linkable);
  if (!valid.length) return links;
  const has = await configured(ctx, accountId);
  if (!has.apple && !has.google) return links;
  for (const t of valid) {
    const path = base(t.ref);
    links.set(t.ref, { ...(has.apple ? { apple: `${path}.pkpass` } : {}), ...(has.google ? { google: `${path}/google` } : {}) });
  }
  return links;
}

/** The order page's buttons: per valid ticket, a link for each wallet the account has keys for. */
export function walletLinks(
  ctx: AppContext,
  accountId: number,
  orderSecret: string,
  tickets: readonly LinkableTicket[],
): Promise<Map<string, WalletLink>> {
  return linksFor(ctx, accountId, tickets, (ref) => ticketPath(orderSecret, ref));
}

/** The same for the page of a ticket passed on (`/ticket/{secret}`): its holder's own links. */
export function holderWalletLinks(
  ctx: AppContext,
  accountId: number,
  holderSecret: string,
  ticket: LinkableTicket,
): Promise<Map<string, WalletLink>> {
  return linksFor(ctx, accountId, [ticket], () => `/ticket/${encodeURIComponent(holderSecret)}/ticket`);
}

/** The account theme's accent colour and its contrast colour, read from the theme's CSS variables. */
async function themeColors(ctx: AppContext, accountId: number): Promise<PassTicket['colors']> {
  const css = (await loadPageTheme(ctx.db, accountId)).css;
  const background = hexRgb(/--admit-accent-color:\s*(#[0-9a-fA-F]{6})\s*;/.exec(css)?.[1]);
  const foreground = hexRgb(/--admit-accent-color-contrast:\s*(#[0-9a-fA-F]{6})\s*;/.exec(css)?.[1]);
  return background && foreground ? { background, foreground } : undefined;
}

function passTicket(doc: OrderDocument, ticketRef: string, lang: string, colors: PassTicket['colors']): PassTicket | null {
  const t = doc.tickets.find((x) => x.ref === ticketRef && !x.transferred);
  if (!t) return null;
  const { order } = doc;
  const venue = order.venue as (typeof order.venue & { latitude?: unknown; longitude?: unknown }) | null;
  const coordinate = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
  const latitude = coordinate(venue?.latitude);
  const longitude = coordinate(venue?.longitude);
  return {
    accountName: order.account_name,
    accountSlug: order.account_slug,
    eventSlug: order.event_slug,
    eventName: order.event_name,
    startsAt: new Date(order.event_starts_at),
    endsAt: order.event_ends_at ? new Date(order.event_ends_at) : null,
    timezone: order.timezone,
    venue: venue
      ? {
          name: venue.name,
          ...(venue.address ? { address: venue.address } : {}),
          ...(latitude !== undefined && longitude !== undefined ? { latitude, longitude } : {}),
        }
      : null,
    attendee: t.attendee_name ?? order.name ?? null,
    seat: t.seat ? seatText(t.seat) : null,
    typeName: t.type_name,
    orderRef: order.ref,
    ticketRef: t.ref,
    qr: t.qr_token,
    // a refunded or canceled order's tickets are void too, whatever their own row says
    voided: t.status !== 'valid' || order.status !== 'paid',
    lang,
    ...(colors ? { colors } : {}),
  };
}

/** The ticket's .pkpass, or null: no Apple keys, or no such ticket in this order. */
export async function ticketApplePass(
  ctx: AppContext,
  doc: OrderDocument,
  ticketRef: string,
  lang: string,
): Promise<Buffer | null> {
  if (!doc.tickets.some((t) => t.ref === ticketRef && !t.transferred)) return null;
  const keys = (await loadWalletKeys(ctx, doc.order.account_id)).apple;
  if (!keys) return null;
  const ticket = passTicket(doc, ticketRef, lang, await themeColors(ctx, doc.order.account_id));
  return ticket ? applePass(keys, ticket) : null;
}

/** The ticket's Google save link (a fresh JWT), or null: no Google key, or no such ticket in this order. */
export async function ticketGoogleLink(
  ctx: AppContext,
  doc: OrderDocument,
  ticketRef: string,
  lang: string,
): Promise<string | null> {
  if (!doc.tickets.some((t) => t.ref === ticketRef && !t.transferred)) return null;
  const keys = (await loadWalletKeys(ctx, doc.order.account_id)).google;
  if (!keys) return null;
  const ticket = passTicket(doc, ticketRef, lang, await themeColors(ctx, doc.order.account_id));
  return ticket ? googleSaveUrl(keys, ticket, new URL(ctx.config.baseUrl).origin, ctx.clock.now()) : null;
}
