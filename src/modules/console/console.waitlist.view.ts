import { html, type SafeHtml } from '../../platform/http/html.ts';
import type { EventRow } from '../events/events.repo.ts';
import type { EntryOut } from '../waitlist/waitlist.service.ts';
import { can, type Viewer } from './console.http.ts';
import {
  buttonForm,
  checkbox,
  consolePage,
  emptyState,
  field,
  hiddenCsrf,
  nextStep,
  type FieldErrors,
  type Flash,
} from './console-layout.view.ts';
import { eventBase } from './console.order-desk.view.ts';
import { when } from './formats.ts';
import { t } from './console-lang.ts';
import type { ConsoleMessages } from '../i18n/i18n.ts';
import { eventTabs } from './event-tabs.view.ts';

/** An entry's status in words. */
const WAITLIST_STATUS: Record<EntryOut['status'], (m: ConsoleMessages) => string> = {
  waiting: (m) => m.wlWaiting,
  offered: (m) => m.wlOffered,
  accepted: (m) => m.wlAccepted,
  expired: (m) => m.wlExpired,
  removed: (m) => m.wlRemoved,
};
const PILL: Record<EntryOut['status'], string> = {
  waiting: 'pending',
  offered: 'pending',
  accepted: 'paid',
  expired: 'canceled',
  removed: 'canceled',
};

/**
 * An event's waiting list: who waits for which type in what place, the offers made and how they
 * ended; offer now and remove for those who may change orders; the list as CSV.
 */
export function waitingListPage(opts: {
  viewer: Viewer;
  event: EventRow;
  entries: EntryOut[];
  types: Map<number, string>;
  flash?: Flash | null;
  /** the settings form, for those who may change the event: the version it was read with, and a refused save */
  settings?: { etag: string; sent?: Record<string, string>; errors?: FieldErrors };
}): string {
  const { viewer, event, entries } = opts;
  const base = eventBase(viewer, event.slug);
  const write = can(viewer, 'orders.write');
  const tz = event.timezone;
  const m = t();
  // an empty list's card says whether the list is on; with entries, the line above them does
  const body: SafeHtml = html`${eventTabs(viewer, event.slug, 'waiting-list')}
    ${
      entries.length
        ? html`<p>${event.waiting_list_enabled ? m.wlOn(String(event.waiting_list_offer_minutes)) : m.wlOff}</p>
          <p><a class="button secondary" href="${base}/waiting-list.csv">${m.wlExportCsv}</a></p>`
        : ''
    }
    ${
      entries.length
        ? html`<div class="table-wrap" tabindex="0" role="region" aria-label="${m.tabWaitingList}">
            <table>
              <caption class="skip">${m.wlCaption}</caption>
              <thead>
                <tr>
                  <th scope="col" class="num">${m.wlPlace}</th>
                  <th scope="col">${m.person}</th>
                  <th scope="col">${m.ticketType}</th>
                  <th scope="col" class="num">${m.wlQty}</th>
                  <th scope="col">${m.status}</th>
                  <th scope="col">${m.wlJoined}</th>
                  ${write ? html`<th scope="col">${m.actions}</th>` : ''}
                </tr>
              </thead>
              <tbody>
                ${entries.map(
                  (e) => html`<tr>
                    <td class="num">${e.position === null ? '–' : String(e.position)}</td>
                    <td>${e.name}<div class="muted">${e.email}</div></td>
                    <td>${opts.types.get(e.ticket_type_id) ?? ''}</td>
                    <td class="num">${String(e.quantity)}</td>
                    <td>
                      <span class="pill status-${PILL[e.status]}">${WAITLIST_STATUS[e.status](m)}</span>
                      ${e.order ? html`<div class="muted">${m.wlOrder} <a href="${base}/orders/${encodeURIComponent(e.order)}">${e.order}</a></div>` : ''}
                      ${e.status === 'offered' && e.expires_at ? html`<div class="muted">${m.wlUntil(when(e.expires_at, tz))}</div>` : ''}
                    </td>
                    <td>${when(e.created_at, tz)}</td>
                    ${
                      write
                        ? html`<td>
                            ${
                              e.status === 'waiting'
                                ? buttonForm({
                                    action: `${base}/waiting-list/${e.id}/offer`,
                                    csrf: viewer.csrf,
                                    label: m.wlOfferNow,
                                    kind: 'secondary',
                                    ariaLabel: m.wlOfferNowTo(e.name),
                                  })
                                : ''
                            }
                            ${
                              e.status === 'waiting' || e.status === 'offered'
                                ? buttonForm({
                                    action: `${base}/waiting-list/${e.id}/remove`,
                                    csrf: viewer.csrf,
                                    label: m.wlRemove,
                                    kind: 'danger',
                                    ariaLabel: m.wlRemoveNamed(e.name),
                                  })
                                : ''
                            }
                          </td>`
                        : ''
                    }
                  </tr>`,
                )}
              </tbody>
            </table>
          </div>`
        : event.waiting_list_enabled
          ? emptyState({ name: 'waiting-list', text: m.emptyWaitingOn })
          : emptyState({
              name: 'waiting-list',
              text: opts.settings ? m.emptyWaitingOff : `${m.emptyWaitingOff} ${m.emptyAskOrganiser}`,
              next: opts.settings ? nextStep('#wl-settings', m.emptyWaitingTurnOn) : undefined,
            })
    }
    ${opts.settings ? settingsForm(viewer, event, opts.settings) : ''}`;
  return consolePage({ title: m.wlTitle(event.name), viewer, active: 'events', flash: opts.flash ?? null, body });
}

/** Whether the event offers a waiting list, and how long an offer holds its places. */
function settingsForm(
  viewer: Viewer,
  event: EventRow,
  s: { etag: string; sent?: Record<string, string>; errors?: FieldErrors },
): SafeHtml {
  const m = t();
  const enabled = s.sent ? s.sent.enabled === '1' : event.waiting_list_enabled;
  const minutes = s.sent ? (s.sent.offer_minutes ?? '') : String(event.waiting_list_offer_minutes);
  return html`<form method="post" action="${eventBase(viewer, event.slug)}/waiting-list/settings" class="card" id="wl-settings">
    <h2>${m.wlSettings}</h2>
    ${hiddenCsrf(viewer.csrf)}<input type="hidden" name="etag" value="${s.etag}" />
    ${checkbox({ name: 'enabled', label: m.wlEnabledLabel, checked: enabled })}
    ${field({
      name: 'offer_minutes',
      label: m.wlOfferMinutes,
      value: minutes,
      hint: m.wlOfferMinutesHint,
      errors: s.errors,
      required: true,
      attrs: 'inputmode="numeric"',
    })}
    <button type="submit">${m.wlSaveSettings}</button>
  </form>`;
}
