import { when } from './formats.ts';
import { html, type SafeHtml } from '../../platform/http/html.ts';
import type { EventDocument } from '../events/event-config.service.ts';
import { localInput } from './catalogue-form.ts';
import type { Viewer } from './console.http.ts';
import { consolePage, field, hiddenCsrf, type Flash } from './console-layout.view.ts';

// An event's lifecycle in the console (contract section 11): draft or published, when sales
// open, archived, deleted. Template text keeps its own indentation (it is the pages' HTML).

const eventBase = (v: Viewer, slug: string) => `/console/a/${encodeURIComponent(v.account!.slug)}/events/${slug}`;

/** What a lifecycle form's answer (`?lifecycle=`) says on the event's page. */
const OUTCOMES: Record<string, Flash> = {
  published: { kind: 'ok', text: 'The event is published: buyers can see its page.' },
  drafted: { kind: 'ok', text: 'The event is a draft again: buyers no longer see it.' },
  scheduled: { kind: 'ok', text: 'The sales start was saved.' },
  unscheduled: { kind: 'ok', text: 'The sales start was cleared: tickets are on sale while the event is published.' },
  archived: { kind: 'ok', text: 'The event is archived: it is off the lists. Its orders and tickets keep working.' },
  unarchived: { kind: 'ok', text: 'The event is back on the lists.' },
  'has-orders': {
    kind: 'bad',
    text: 'Not changed: this event has orders, so it stays published and cannot be deleted. Archive it to take it off the lists.',
  },
  'bad-sales-start': {
    kind: 'bad',
    text: 'Not scheduled: the sales start must be a date and time before sales end (the sales end, else the end, else the start of the event).',
  },
  stale: {
    kind: 'bad',
    text: 'Someone else changed this event after you opened the page, so your change was not saved. The page now shows the current version: make your change again.',
  },
};

/** The flash of a lifecycle form's answer, if the query carries one. */
export function lifecycleFlash(query: unknown): Flash | null {
  const q = (query ?? {}) as Record<string, unknown>;
  return typeof q.lifecycle === 'string' ? (OUTCOMES[q.lifecycle] ?? null) : null;
}

/** A one-button lifecycle form: the action, the page's ETag (no silent overwrite) and the CSRF token. */
function actionForm(v: Viewer, slug: string, etag: string, action: string, label: string, kind?: 'secondary'): SafeHtml {
  return html`<form method="post" action="${eventBase(v, slug)}/lifecycle" class="inline">
    ${hiddenCsrf(v.csrf)}<input type="hidden" name="etag" value="${etag}" /><input type="hidden" name="action" value="${action}" />
    <button type="submit"${kind ? html` class="${kind}"` : ''}>${label}</button>
  </form>`;
}

/**
 * The event page's "Status and schedule" card for those who may change events: publish or back
 * to draft (only while there are no orders), the preview, the sales start, archive, delete.
 */
export function lifecycleCard(opts: { viewer: Viewer; doc: EventDocument; etag: string; hasOrders: boolean }): SafeHtml {
  const { viewer: v, doc, etag, hasOrders } = opts;
  const draft = doc.status === 'draft';
  const tz = doc.timezone;
  const base = eventBase(v, doc.slug);
  return html`<section class="card" aria-labelledby="lifecycle-h" id="lifecycle">
      <h2 id="lifecycle-h">Status and schedule</h2>
      <p>
        <span class="pill" data-status="${doc.status ?? 'published'}">${draft ? 'Draft' : 'Published'}</span>
        ${doc.archived ? html`<span class="pill" data-archived>Archived</span>` : ''}
        ${
          draft
            ? 'Buyers cannot see a draft: its page is not found and it is on no list.'
            : doc.archived
              ? 'Archived: off the lists; its orders and tickets keep working.'
              : 'Buyers can see the event page.'
        }
      </p>
      <p><a href="${base}/preview">Preview the buyer page</a></p>
      <div class="actions">
        ${draft ? actionForm(v, doc.slug, etag, 'publish', 'Publish') : ''}
        ${!draft && !hasOrders ? actionForm(v, doc.slug, etag, 'draft', 'Back to draft', 'secondary') : ''}
      </div>
      <h3>Schedule</h3>
      <p class="muted">
        ${
          doc.sales_start_at
            ? html`Sales open ${when(doc.sales_start_at, tz)} (${tz}); until then the event page says so and the checkout is closed.`
            : 'No sales start: tickets are on sale as soon as the event is published.'
        }
      </p>
      <form method="post" action="${base}/lifecycle">
        ${hiddenCsrf(v.csrf)}<input type="hidden" name="etag" value="${etag}" />
        ${field({
          name: 'sales_start_at',
          label: `Sales start (${tz})`,
          type: 'datetime-local',
          value: localInput(doc.sales_start_at, tz),
          hint: 'Empty: on sale as soon as the event is published.',
        })}
        <div class="actions">
          <button type="submit" name="action" value="schedule">Save the sales start</button>
          ${doc.sales_start_at ? html`<button type="submit" name="action" value="unschedule" class="secondary">Clear it</button>` : ''}
        </div>
      </form>
      <h3>Archive or delete</h3>
      ${
        hasOrders
          ? html`<p class="muted">This event has orders, so it cannot be deleted. Archiving takes it off the lists.</p>
              <div class="actions">
                ${doc.archived ? actionForm(v, doc.slug, etag, 'unarchive', 'Unarchive', 'secondary') : actionForm(v, doc.slug, etag, 'archive', 'Archive', 'secondary')}
              </div>`
          : html`<p class="muted">This event has no orders: it can be deleted with its ticket types, lists and codes.</p>
              <p><a class="danger-link" href="${base}/delete">Delete this event…</a></p>`
      }
    </section>`;
}

/** The delete confirmation: what goes, and one button (a CSRF form, answered by a redirect). */
export function deleteConfirmPage(opts: { viewer: Viewer; doc: EventDocument; hasOrders: boolean }): string {
  const { viewer: v, doc } = opts;
  const base = eventBase(v, doc.slug);
  return consolePage({
    title: `Delete ${doc.name}`,
    viewer: v,
    active: 'events',
    body: html`<section class="card" aria-labelledby="delete-h">
      <h2 id="delete-h">Delete “${doc.name}”?</h2>
      ${
        opts.hasOrders
          ? html`<p>This event has orders, so it cannot be deleted. Archive it instead to take it off the lists.</p>
              <p><a href="${base}#lifecycle">Back to the event</a></p>`
          : html`<p>
                The event <strong>${doc.slug}</strong> has no orders. Deleting it removes its ticket types, extras,
                sessions, check-in lists, discount codes and saved reports. This cannot be undone.
              </p>
              <form method="post" action="${base}/delete">
                ${hiddenCsrf(v.csrf)}
                <div class="actions">
                  <button type="submit" class="danger">Delete the event</button>
                  <a href="${base}">Cancel</a>
                </div>
              </form>`
      }
    </section>`,
  });
}
