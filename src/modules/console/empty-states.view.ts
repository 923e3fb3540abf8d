import { html, type SafeHtml } from '../../platform/http/html.ts';
import { can, type Viewer } from './console.http.ts';
import type { SalesReadiness } from './console-events.service.ts';
import { emptyState, nextStep } from './console-layout.view.ts';
import { t } from './console-lang.ts';

// Empty lists that share their next step across pages: an event's orders (its desk, dashboard and
// reports say the same) and what the event still lacks before buyers can order.

const eventHref = (v: Viewer, slug: string) =>
  `/console/a/${encodeURIComponent(v.account!.slug)}/events/${encodeURIComponent(slug)}`;

/**
 * "No orders yet", with what stands between the event and its first order: a draft to publish, an
 * archived event to bring back, a first ticket type to add, or else the event page to share (and
 * a complimentary order for those who may issue one). Those who may not change the event are told
 * who can.
 */
export function noOrdersYet(viewer: Viewer, r: SalesReadiness): SafeHtml {
  const m = t();
  const base = eventHref(viewer, r.slug);
  const write = can(viewer, 'events.write');
  const blocked = (why: string, label: string, href: string) =>
    emptyState({
      name: 'orders',
      text: `${m.emptyOrders} ${why}${write ? '' : ` ${m.emptyAskOrganiser}`}`,
      next: write ? nextStep(href, label) : undefined,
    });
  if (r.archived) return blocked(m.emptyArchivedEvent, m.emptyUnarchiveIt, `${base}#lifecycle`);
  if (r.status === 'draft') return blocked(m.emptyDraft, m.emptyPublishIt, `${base}#lifecycle`);
  if (!r.somethingToBuy) return blocked(m.emptyNothingToBuy, m.emptyAddTicketType, `${base}/ticket-types#add`);
  return emptyState({
    name: 'orders',
    text: html`${m.emptyOrders} ${m.emptyShare} <a href="${r.publicUrl}" class="next">${r.publicUrl}</a>`,
    next: can(viewer, 'orders.write') ? nextStep(`${base}/orders/new`, m.emptyOrComp, 'secondary') : undefined,
  });
}
