import { html, type SafeHtml } from '../../platform/http/html.ts';
import type { Locale } from '../i18n/i18n.ts';

/** What a scanned QR code shows: the event, when it is, and whether the ticket (or how many of the order's tickets) admit. */

interface Scanned {
  event: string;
  starts_at: Date | string;
  timezone: string;
}

export function ticketQrBody(t: Scanned & { ref: string; type: string; valid: boolean }, loc: Locale): SafeHtml {
  return html`<h1>${t.event}</h1>
          <p class="muted">${loc.dateTime(t.starts_at, t.timezone)}</p>
          <p class="admit-status" role="status">${loc.m.qrTicketStatus(t.ref, t.type, t.valid)}</p>
          <p class="muted">${loc.m.qrShowAtDoor}</p>`;
}

export function orderQrBody(o: Scanned & { ref: string; valid: number }, loc: Locale): SafeHtml {
  return html`<h1>${o.event}</h1>
          <p class="muted">${loc.dateTime(o.starts_at, o.timezone)}</p>
          <p class="admit-status" role="status">${loc.m.qrOrderStatus(o.ref, o.valid)}</p>`;
}
