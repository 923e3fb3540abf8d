import { html, raw, type SafeHtml } from '../../platform/http/html.ts';
import type { UpcomingEvent } from '../events/event-listings.service.ts';
import type { Locale } from '../i18n/i18n.ts';

/** The bodies of the public pages around the shop: what this server is, and an account's upcoming events. */

const LIST_CSS = raw(`<style>
.admit-events{list-style:none;padding:0;margin:1rem 0;display:grid;gap:.75rem}
.admit-events li{border:1px solid color-mix(in srgb,var(--admit-text-color-muted) 45%,transparent);border-radius:var(--admit-card-radius);padding:.85rem 1rem}
.admit-events a{font-weight:600;font-size:1.1rem}
.admit-events p{margin:.25rem 0 0}
.admit-links{display:flex;flex-wrap:wrap;gap:.5rem 1.25rem;padding:0;list-style:none}
</style>`);

function eventList(events: UpcomingEvent[], loc: Locale, showAccount: boolean): SafeHtml {
  if (!events.length) return html`<p>${loc.m.noUpcomingEvents}</p>`;
  return html`<ul class="admit-events">
    ${events.map(
      (e) => html`<li>
        <a href="/e/${encodeURIComponent(e.account_slug)}/${encodeURIComponent(e.slug)}">${e.name}</a>
        <p class="muted">
          <time datetime="${new Date(e.starts_at).toISOString()}">${loc.dateTime(e.starts_at, e.timezone)}</time>${e.venue ? html` · ${e.venue.name}` : ''}${showAccount ? html` · ${e.account_name}` : ''}
        </p>
      </li>`,
    )}
  </ul>`;
}

/** `/`: the console, the API docs, every account's upcoming events. */
export function homeBody(events: UpcomingEvent[], loc: Locale): SafeHtml {
  const { m } = loc;
  return html`${LIST_CSS}
        <h1>${m.ticketsOnServer}</h1>
        <ul class="admit-links">
          <li><a href="/console">${m.organiserConsole}</a></li>
          <li><a href="/docs">${m.apiDocs}</a></li>
        </ul>
        <h2>${m.upcomingEvents}</h2>
        ${eventList(events, loc, true)}`;
}

/** `/e/{account}`: the account's upcoming events. */
export function accountEventsBody(account: { slug: string; name: string }, events: UpcomingEvent[], loc: Locale): SafeHtml {
  return html`${LIST_CSS}
        <h1>${account.name}</h1>
        <h2>${loc.m.upcomingEvents}</h2>
        ${eventList(events, loc, false)}`;
}
