import { plainGeneral, plainList } from './plain-words.ts';
import { money, when } from './formats.ts';
import { html, raw, type SafeHtml } from '../../platform/http/html.ts';
import type { EventConfig, EventDocument } from '../events/event-config.service.ts';
import type { EventSummary } from '../events/events.service.ts';
import { localInput } from './catalogue-form.ts';
import { can, type Viewer } from './console.http.ts';
import { consolePage, field, hiddenCsrf, select, type FieldErrors, type Flash } from './console-layout.view.ts';
import { TIMEZONES } from './event-form.ts';
import { eventTabs } from './event-tabs.view.ts';

// The console's event pages: the list, a new event, one event's details (with duplicating it).
// Template text keeps its own indentation (it is the pages' HTML), not the code's.

/** The address of the viewer's account in the console. */
export const accountBase = (v: Viewer): string => `/console/a/${encodeURIComponent(v.account!.slug)}`;

/** A save with an ETag that is no longer the event's. */
export const STALE: Flash = {
  kind: 'bad',
  text: 'Someone else changed this event after you opened the page, so your change was not saved. The page now shows the current version: make your change again.',
};

/** The events list: upcoming first, then past ones, with tickets sold, net sales and capacity; archived ones on their own list. */
export function eventListPage(opts: { viewer: Viewer; events: EventSummary[]; archived?: boolean; flash: Flash | null }): string {
  const { viewer, events } = opts;
  return consolePage({
    title: 'Events',
    viewer,
    active: 'events',
    flash: opts.flash,
    body: html`${
      can(viewer, 'events.write')
        ? html`<p class="actions"><a class="button" href="${accountBase(viewer)}/events/new">New event</a></p>`
        : ''
    }
          ${archiveFilter(viewer, Boolean(opts.archived))}
          ${
            events.length
              ? html`<div class="table-wrap" tabindex="0" role="region" aria-label="Events">
                <table>
                  <thead>
                    <tr>
                      <th scope="col">Event</th>
                      <th scope="col">Starts</th>
                      <th scope="col" class="num">Tickets sold</th>
                      <th scope="col" class="num">Net sales</th>
                      <th scope="col" class="num">Capacity</th>
                    </tr>
                  </thead>
                  <tbody>
                    ${events.map(
                      (e) =>
                        html`<tr>
                          <td>
                            <a href="${accountBase(viewer)}/events/${e.slug}">${e.name}</a>
                            <div class="muted">${e.slug}${e.status === 'draft' ? html` · <span class="pill">draft</span>` : ''}${e.archived ? html` · <span class="pill">archived</span>` : ''}${e.past ? html` · <span class="pill">past</span>` : ''}</div>
                          </td>
                          <td>${when(e.starts_at, e.timezone)}</td>
                          <td class="num" data-sold="${e.slug}">${e.sold ?? 0}</td>
                          <td class="num">${money(Number(e.net_cents ?? 0), e.currency)}</td>
                          <td class="num">${e.capacity ?? '∞'}</td>
                        </tr>`,
                    )}
                  </tbody>
                </table>
              </div>`
              : html`<div class="card"><p>${opts.archived ? 'No archived events.' : 'No events yet.'}</p></div>`
          }`,
  });
}

/** Current events or archived ones: two links, the shown one marked. */
function archiveFilter(viewer: Viewer, archived: boolean): SafeHtml {
  const href = `${accountBase(viewer)}/events`;
  return html`<nav class="segmented" aria-label="Which events">
    <a href="${href}" ${archived ? '' : raw('aria-current="page"')}>Current</a>
    <a href="${href}?show=archived" ${archived ? raw('aria-current="page"') : ''}>Archived</a>
  </nav>`;
}

function eventForm(opts: {
  viewer: Viewer;
  action: string;
  doc: Partial<EventDocument>;
  errors?: FieldErrors;
  creating: boolean;
  etag?: string;
  submit: string;
}): SafeHtml {
  const d = opts.doc;
  const tz = d.timezone ?? 'Europe/Berlin';
  const e = opts.errors ?? {};
  return html`<form method="post" action="${opts.action}" class="card">
      ${hiddenCsrf(opts.viewer.csrf)} ${opts.etag ? html`<input type="hidden" name="etag" value="${opts.etag}" />` : ''}
      ${e._ ? html`<div class="flash bad" role="alert">${e._.map(plainGeneral).join(' ')}</div>` : ''}
      <div class="grid">
        ${field({ name: 'name', label: 'Name', value: d.name, errors: e, required: true })}
        ${
          opts.creating
            ? field({
                name: 'slug',
                label: 'Web address',
                value: d.slug,
                errors: e,
                hint: 'The end of the event page’s address. Empty: made from the name.',
              })
            : ''
        }
        ${
          opts.creating
            ? field({
                name: 'currency',
                label: 'Currency',
                value: d.currency ?? 'eur',
                errors: e,
                required: true,
                hint: 'ISO code, like eur or usd.',
              })
            : ''
        }
        ${select({
          name: 'timezone',
          label: 'Timezone',
          value: tz,
          errors: e,
          options: TIMEZONES.map((z) => ({ value: z, label: z })),
        })}
        ${field({ name: 'starts_at', label: 'Starts', type: 'datetime-local', value: localInput(d.starts_at, tz), errors: e, required: true })}
        ${field({ name: 'ends_at', label: 'Ends', type: 'datetime-local', value: localInput(d.ends_at, tz), errors: e })}
        ${field({ name: 'sales_end_at', label: 'Sales end', type: 'datetime-local', value: localInput(d.sales_end_at, tz), errors: e, hint: 'Empty: when the event ends.' })}
        ${select({
          name: 'locale',
          label: 'Language of the buyer pages',
          value: d.locale ?? 'en',
          errors: e,
          options: [
            { value: 'en', label: 'English' },
            { value: 'de', label: 'Deutsch' },
          ],
        })}
        ${field({ name: 'venue_name', label: 'Venue', value: d.venue?.name, errors: e })}
        ${field({ name: 'venue_address', label: 'Venue address', value: d.venue?.address, errors: e })}
      </div>
      <div class="field">
        <label for="f-description">Description</label>
        <textarea id="f-description" name="description" rows="6" aria-describedby="f-description-hint">${d.description ?? ''}</textarea>
        <p class="hint" id="f-description-hint">Markdown: **bold**, _italic_, [links](https://example.org), lists.</p>
        ${e.description ? html`<p class="error">${plainList(e.description)}</p>` : ''}
      </div>
      <button type="submit">${opts.submit}</button>
    </form>`;
}

/** The new event form, empty or with what was sent and its errors. */
export function newEventPage(opts: { viewer: Viewer; doc: Partial<EventDocument>; errors?: FieldErrors }): string {
  const { viewer } = opts;
  return consolePage({
    title: 'New event',
    viewer,
    active: 'events',
    body: eventForm({
      viewer,
      action: `${accountBase(viewer)}/events/new`,
      doc: opts.doc,
      errors: opts.errors,
      creating: true,
      submit: 'Create the event',
    }),
  });
}

/**
 * One event's details: the form over `doc` (the stored document unless a sent one is shown again)
 * and the duplicate form for those who may change events, a summary for the others. `errors.dup`
 * belongs to the duplicate form.
 */
export function eventDetailsPage(opts: {
  viewer: Viewer;
  config: EventConfig;
  publicUrl: string;
  /** the status and schedule card (for those who may change events) */
  lifecycle?: SafeHtml;
  doc: Partial<EventDocument>;
  errors?: FieldErrors;
  flash: Flash | null;
}): string {
  const { viewer, config, doc } = opts;
  const writable = can(viewer, 'events.write');
  const url = opts.publicUrl;
  return consolePage({
    title: config.document.name,
    viewer,
    active: 'events',
    flash: opts.flash,
    body: html`${eventTabs(viewer, config.document.slug, '')}
          <p>Public page: <a href="${url}">${url}</a> · ${config.document.currency.toUpperCase()}</p>
          ${opts.lifecycle ?? ''}
          ${
            writable
              ? html`${eventForm({
                  viewer,
                  action: `${accountBase(viewer)}/events/${config.document.slug}`,
                  doc,
                  errors: opts.errors,
                  creating: false,
                  etag: config.etag,
                  submit: 'Save',
                })}
                <form method="post" action="${accountBase(viewer)}/events/${config.document.slug}/duplicate" class="card">
                  <h2>Duplicate</h2>
                  <p class="muted">A new event with this configuration and no orders; every date moves with the start.</p>
                  ${hiddenCsrf(viewer.csrf)}
                  <div class="grid">
                    ${field({ name: 'name', label: 'New name', id: 'dup-name', value: config.document.name })}
                    ${field({ name: 'slug', label: 'New web address', id: 'dup-slug', hint: 'Empty: made from the name.', errors: opts.errors?.dup ? { slug: opts.errors.dup } : {} })}
                    ${field({ name: 'starts_at', label: 'Starts', id: 'dup-starts', type: 'datetime-local', value: localInput(config.document.starts_at, config.document.timezone) })}
                  </div>
                  <button type="submit" class="secondary">Duplicate</button>
                </form>`
              : html`<div class="card">
                <p><strong>Starts</strong> ${when(doc.starts_at, doc.timezone ?? 'UTC')} (${doc.timezone})</p>
                ${doc.venue ? html`<p><strong>Venue</strong> ${doc.venue.name}</p>` : ''}
              </div>`
          }`,
  });
}
