import { plainGeneral, plainList } from './plain-words.ts';
import { count, money, when } from './formats.ts';
import { html, raw, type SafeHtml } from '../../platform/http/html.ts';
import type { EventConfig, EventDocument } from '../events/event-config.service.ts';
import type { EventSummary } from '../events/events.service.ts';
import { localInput } from './catalogue-form.ts';
import { can, type Viewer } from './console.http.ts';
import {
  checkbox,
  consolePage,
  emptyState,
  field,
  hiddenCsrf,
  nextStep,
  select,
  type FieldErrors,
  type Flash,
} from './console-layout.view.ts';
import { TIMEZONES } from './event-form.ts';
import { eventTabs } from './event-tabs.view.ts';
import { asset } from './console.assets.ts';
import { t } from './console-lang.ts';

// The console's event pages: the list, a new event, one event's details (with duplicating it).
// Template text keeps its own indentation (it is the pages' HTML), not the code's.

/** The address of the viewer's account in the console. */
export const accountBase = (v: Viewer): string => `/console/a/${encodeURIComponent(v.account!.slug)}`;

/** A save with an ETag that is no longer the event's (in the request's language, hence a getter). */
export const STALE: Flash = {
  kind: 'bad',
  get text() {
    return t().stale;
  },
};

/** The events list: upcoming first, then past ones, with tickets sold, net sales and capacity; archived ones on their own list. */
export function eventListPage(opts: { viewer: Viewer; events: EventSummary[]; archived?: boolean; flash: Flash | null }): string {
  const { viewer, events } = opts;
  const m = t();
  return consolePage({
    title: m.events,
    viewer,
    active: 'events',
    flash: opts.flash,
    body: html`${
      can(viewer, 'events.write')
        ? html`<p class="actions"><a class="button" href="${accountBase(viewer)}/events/new">${m.newEvent}</a></p>`
        : ''
    }
          ${archiveFilter(viewer, Boolean(opts.archived))}
          ${
            events.length
              ? html`<div class="table-wrap" tabindex="0" role="region" aria-label="${m.events}">
                <table>
                  <thead>
                    <tr>
                      <th scope="col">${m.colEvent}</th>
                      <th scope="col">${m.colStarts}</th>
                      <th scope="col" class="num">${m.colTicketsSold}</th>
                      <th scope="col" class="num">${m.colNetSales}</th>
                      <th scope="col" class="num">${m.colCapacity}</th>
                    </tr>
                  </thead>
                  <tbody>
                    ${events.map(
                      (e) =>
                        html`<tr>
                          <td>
                            <a href="${accountBase(viewer)}/events/${e.slug}">${e.name}</a>
                            <div class="muted">${e.slug}${e.status === 'draft' ? html` · <span class="pill">${m.pillDraft}</span>` : ''}${e.archived ? html` · <span class="pill">${m.pillArchived}</span>` : ''}${e.past ? html` · <span class="pill">${m.pillPast}</span>` : ''}</div>
                          </td>
                          <td>${when(e.starts_at, e.timezone)}</td>
                          <td class="num" data-sold="${e.slug}">${count(e.sold ?? 0)}</td>
                          <td class="num">${money(Number(e.net_cents ?? 0), e.currency)}</td>
                          <td class="num">${e.capacity === null || e.capacity === undefined ? '∞' : count(e.capacity)}</td>
                        </tr>`,
                    )}
                  </tbody>
                </table>
              </div>`
              : noEvents(viewer, Boolean(opts.archived))
          }`,
  });
}

/** The empty list: what will be there, and creating the first event (or going back from the archive). */
function noEvents(viewer: Viewer, archived: boolean): SafeHtml {
  const m = t();
  const href = `${accountBase(viewer)}/events`;
  if (archived)
    return emptyState({
      name: 'archived-events',
      text: m.emptyArchived,
      next: nextStep(href, m.emptyBackToCurrent, 'secondary'),
    });
  return can(viewer, 'events.write')
    ? emptyState({ name: 'events', text: m.emptyEvents, next: nextStep(`${href}/new`, m.emptyCreateFirstEvent) })
    : emptyState({ name: 'events', text: `${m.emptyEvents} ${m.emptyEventsAskOwner}` });
}

/** Current events or archived ones: two links, the shown one marked. */
function archiveFilter(viewer: Viewer, archived: boolean): SafeHtml {
  const href = `${accountBase(viewer)}/events`;
  const m = t();
  return html`<nav class="segmented" aria-label="${m.whichEvents}">
    <a href="${href}" ${archived ? '' : raw('aria-current="page"')}>${m.current}</a>
    <a href="${href}?show=archived" ${archived ? raw('aria-current="page"') : ''}>${m.archived}</a>
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
  /** the description as buyers will see it, after the form's Preview button (null: it is empty) */
  preview?: SafeHtml | null;
}): SafeHtml {
  const d = opts.doc;
  const tz = d.timezone ?? 'Europe/Berlin';
  const e = opts.errors ?? {};
  const m = t();
  return html`<form method="post" action="${opts.action}" class="card">
      ${hiddenCsrf(opts.viewer.csrf)} ${opts.etag ? html`<input type="hidden" name="etag" value="${opts.etag}" />` : ''}
      <button type="submit" class="default-submit" tabindex="-1" aria-hidden="true">${opts.submit}</button>
      ${e._ ? html`<div class="flash bad" role="alert">${e._.map(plainGeneral).join(' ')}</div>` : ''}
      <div class="grid">
        ${field({ name: 'name', label: m.name, value: d.name, errors: e, required: true })}
        ${
          opts.creating
            ? field({
                name: 'slug',
                label: m.webAddress,
                value: d.slug,
                errors: e,
                hint: m.webAddressHint,
              })
            : ''
        }
        ${
          opts.creating
            ? field({
                name: 'currency',
                label: m.currency,
                value: d.currency ?? 'eur',
                errors: e,
                required: true,
                hint: m.currencyHint,
              })
            : ''
        }
        ${select({
          name: 'timezone',
          label: m.timezone,
          value: tz,
          errors: e,
          options: TIMEZONES.map((z) => ({ value: z, label: z })),
        })}
        ${field({ name: 'starts_at', label: m.starts, type: 'datetime-local', value: localInput(d.starts_at, tz), errors: e, required: true })}
        ${field({ name: 'ends_at', label: m.ends, type: 'datetime-local', value: localInput(d.ends_at, tz), errors: e })}
        ${field({ name: 'sales_end_at', label: m.salesEnd, type: 'datetime-local', value: localInput(d.sales_end_at, tz), errors: e, hint: m.salesEndHint })}
        ${select({
          name: 'locale',
          label: m.buyerLanguage,
          value: d.locale ?? 'en',
          errors: e,
          options: [
            { value: 'en', label: 'English' },
            { value: 'de', label: 'Deutsch' },
          ],
        })}
        ${field({ name: 'venue_name', label: m.venue, value: d.venue?.name, errors: e })}
        ${field({ name: 'venue_address', label: m.venueAddress, value: d.venue?.address, errors: e })}
      </div>
      ${descriptionField(opts.viewer, opts.action, d.description ?? '', e, opts.preview)}
      ${selfServiceFields(d, tz, e)}
      <button type="submit">${opts.submit}</button>
    </form>`;
}

/**
 * The description (Markdown) with its preview: the Preview button sends the form back to be shown
 * again with the description rendered below it, nothing saved (it also works without script);
 * description-preview.js renders it as the organiser types, through the account's preview
 * endpoint. Both show what `renderDescription` makes of it, the very HTML of the buyer page.
 */
function descriptionField(viewer: Viewer, action: string, text: string, e: FieldErrors, preview?: SafeHtml | null): SafeHtml {
  const m = t();
  const previewing = preview !== undefined;
  return html`<div class="field">
      <label for="f-description">${m.description}</label>
      <textarea id="f-description" name="description" rows="6" aria-describedby="f-description-hint" data-preview-url="${accountBase(viewer)}/markdown-preview">${text}</textarea>
      <p class="hint" id="f-description-hint">${m.descriptionHint}</p>
      ${e.description ? html`<p class="error">${plainList(e.description)}</p>` : ''}
      <p class="actions">
        <button type="submit" name="intent" value="preview" class="secondary" formaction="${action}#description-preview">${m.previewDescription}</button>
      </p>
      <section id="description-preview" class="md-preview" aria-labelledby="description-preview-h" data-empty="${m.previewEmpty}" data-failed="${m.previewFailed}" ${previewing ? '' : raw('hidden')}>
        <h2 id="description-preview-h">${m.previewTitle}</h2>
        ${previewing ? html`<p class="hint" data-preview-note>${m.previewNotSaved}</p>` : ''}
        <div class="md-body" data-preview-body>${previewing ? (preview ?? html`<p class="muted">${m.previewEmpty}</p>`) : ''}</div>
      </section>
      <script src="${asset('description-preview.js')}" defer></script>
    </div>`;
}

/** The document's `self_service` rules as a fieldset (contract section 15). */
function selfServiceFields(d: Partial<EventDocument>, tz: string, e: FieldErrors): SafeHtml {
  const m = t();
  const r = d.self_service;
  return html`<fieldset class="plain-fieldset">
    <legend>${m.selfService}</legend>
    <p class="hint">${m.selfServiceHint}</p>
    <input type="hidden" name="ss_form" value="1" />
    ${checkbox({ name: 'ss_names', label: m.ssNames, checked: Boolean(r) })}
    <div class="grid">
      ${field({ name: 'ss_edit_until', label: m.ssEditUntil, type: 'datetime-local', value: localInput(r?.edit_until, tz), errors: e, hint: m.ssEditUntilHint })}
      ${field({ name: 'ss_cancel_until', label: m.ssCancelUntil, type: 'datetime-local', value: localInput(r?.cancel_until, tz), errors: e, hint: m.ssCancelUntilHint })}
      ${field({ name: 'ss_cancel_fee', label: m.ssCancelFee, type: 'number', value: r?.cancel_fee_percent !== undefined ? String(r.cancel_fee_percent) : '', errors: e })}
    </div>
    ${checkbox({ name: 'ss_transfer', label: m.ssTransfer, checked: Boolean(r?.transfer) })}
  </fieldset>`;
}

/** The new event form, empty or with what was sent and its errors. */
export function newEventPage(opts: {
  viewer: Viewer;
  doc: Partial<EventDocument>;
  errors?: FieldErrors;
  preview?: SafeHtml | null;
}): string {
  const { viewer } = opts;
  const m = t();
  return consolePage({
    title: m.newEvent,
    viewer,
    active: 'events',
    body: eventForm({
      viewer,
      action: `${accountBase(viewer)}/events/new`,
      doc: opts.doc,
      errors: opts.errors,
      creating: true,
      submit: m.createEvent,
      preview: opts.preview,
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
  /** the description previewed (see eventForm) */
  preview?: SafeHtml | null;
  /** the version the form was read with, kept through a preview so that saving still finds a change made since */
  etag?: string;
}): string {
  const { viewer, config, doc } = opts;
  const writable = can(viewer, 'events.write');
  const url = opts.publicUrl;
  const m = t();
  return consolePage({
    title: config.document.name,
    viewer,
    active: 'events',
    flash: opts.flash,
    body: html`${eventTabs(viewer, config.document.slug, '')}
          <p>${m.publicPage} <a href="${url}">${url}</a> · ${config.document.currency.toUpperCase()}</p>
          ${opts.lifecycle ?? ''}
          ${
            writable
              ? html`${eventForm({
                  viewer,
                  action: `${accountBase(viewer)}/events/${config.document.slug}`,
                  doc,
                  errors: opts.errors,
                  creating: false,
                  etag: opts.etag ?? config.etag,
                  submit: m.save,
                  preview: opts.preview,
                })}
                <form method="post" action="${accountBase(viewer)}/events/${config.document.slug}/duplicate" class="card">
                  <h2>${m.duplicate}</h2>
                  <p class="muted">${m.duplicateIntro}</p>
                  ${hiddenCsrf(viewer.csrf)}
                  <div class="grid">
                    ${field({ name: 'name', label: m.newName, id: 'dup-name', value: config.document.name })}
                    ${field({ name: 'slug', label: m.newWebAddress, id: 'dup-slug', hint: m.emptyFromName, errors: opts.errors?.dup ? { slug: opts.errors.dup } : {} })}
                    ${field({ name: 'starts_at', label: m.starts, id: 'dup-starts', type: 'datetime-local', value: localInput(config.document.starts_at, config.document.timezone) })}
                  </div>
                  <button type="submit" class="secondary">${m.duplicate}</button>
                </form>`
              : html`<div class="card">
                <p><strong>${m.starts}</strong> ${when(doc.starts_at, doc.timezone ?? 'UTC')} (${doc.timezone})</p>
                ${doc.venue ? html`<p><strong>${m.venue}</strong> ${doc.venue.name}</p>` : ''}
              </div>`
          }`,
  });
}
