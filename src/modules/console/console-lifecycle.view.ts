import { when } from './formats.ts';
import { html, type SafeHtml } from '../../platform/http/html.ts';
import type { EventDocument } from '../events/event-config.service.ts';
import { localInput } from './catalogue-form.ts';
import type { Viewer } from './console.http.ts';
import { consolePage, field, hiddenCsrf, type Flash } from './console-layout.view.ts';
import { t } from './console-lang.ts';
import type { ConsoleMessages } from '../i18n/i18n.ts';

// An event's lifecycle in the console (contract section 11): draft or published, when sales
// open, archived, deleted. Template text keeps its own indentation (it is the pages' HTML).

const eventBase = (v: Viewer, slug: string) => `/console/a/${encodeURIComponent(v.account!.slug)}/events/${slug}`;

/** What a lifecycle form's answer (`?lifecycle=`) says on the event's page. */
const OUTCOMES: Record<string, (m: ConsoleMessages) => Flash> = {
  published: (m) => ({ kind: 'ok', text: m.outcomePublished }),
  drafted: (m) => ({ kind: 'ok', text: m.outcomeDrafted }),
  scheduled: (m) => ({ kind: 'ok', text: m.outcomeScheduled }),
  unscheduled: (m) => ({ kind: 'ok', text: m.outcomeUnscheduled }),
  archived: (m) => ({ kind: 'ok', text: m.outcomeArchived }),
  unarchived: (m) => ({ kind: 'ok', text: m.outcomeUnarchived }),
  'has-orders': (m) => ({ kind: 'bad', text: m.outcomeHasOrders }),
  'bad-sales-start': (m) => ({ kind: 'bad', text: m.outcomeBadSalesStart }),
  stale: (m) => ({ kind: 'bad', text: m.stale }),
};

/** The flash of a lifecycle form's answer, if the query carries one. */
export function lifecycleFlash(query: unknown): Flash | null {
  const q = (query ?? {}) as Record<string, unknown>;
  const say = typeof q.lifecycle === 'string' && Object.hasOwn(OUTCOMES, q.lifecycle) ? OUTCOMES[q.lifecycle] : undefined;
  return say ? say(t()) : null;
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
  const m = t();
  return html`<section class="card" aria-labelledby="lifecycle-h" id="lifecycle">
      <h2 id="lifecycle-h">${m.statusAndSchedule}</h2>
      <p>
        <span class="pill" data-status="${doc.status ?? 'published'}">${draft ? m.draft : m.published}</span>
        ${doc.archived ? html`<span class="pill" data-archived>${m.archived}</span>` : ''}
        ${draft ? m.draftExplained : doc.archived ? m.archivedExplained : m.publishedExplained}
      </p>
      <p><a href="${base}/preview">${m.preview}</a></p>
      <div class="actions">
        ${draft ? actionForm(v, doc.slug, etag, 'publish', m.publish) : ''}
        ${!draft && !hasOrders ? actionForm(v, doc.slug, etag, 'draft', m.backToDraft, 'secondary') : ''}
      </div>
      <h3>${m.schedule}</h3>
      <p class="muted">
        ${doc.sales_start_at ? m.salesOpen(when(doc.sales_start_at, tz), tz) : m.noSalesStart}
      </p>
      <form method="post" action="${base}/lifecycle">
        ${hiddenCsrf(v.csrf)}<input type="hidden" name="etag" value="${etag}" />
        ${field({
          name: 'sales_start_at',
          label: m.salesStartLabel(tz),
          type: 'datetime-local',
          value: localInput(doc.sales_start_at, tz),
          hint: m.salesStartHint,
        })}
        <div class="actions">
          <button type="submit" name="action" value="schedule">${m.saveSalesStart}</button>
          ${doc.sales_start_at ? html`<button type="submit" name="action" value="unschedule" class="secondary">${m.clearIt}</button>` : ''}
        </div>
      </form>
      <h3>${m.archiveOrDelete}</h3>
      ${
        hasOrders
          ? html`<p class="muted">${m.cannotDelete}</p>
              <div class="actions">
                ${doc.archived ? actionForm(v, doc.slug, etag, 'unarchive', m.unarchive, 'secondary') : actionForm(v, doc.slug, etag, 'archive', m.archive, 'secondary')}
              </div>`
          : html`<p class="muted">${m.canDelete}</p>
              <p><a class="danger-link" href="${base}/delete">${m.deleteLink}</a></p>`
      }
    </section>`;
}

/** The delete confirmation: what goes, and one button (a CSRF form, answered by a redirect). */
export function deleteConfirmPage(opts: { viewer: Viewer; doc: EventDocument; hasOrders: boolean }): string {
  const { viewer: v, doc } = opts;
  const base = eventBase(v, doc.slug);
  const m = t();
  return consolePage({
    title: m.deleteTitle(doc.name),
    viewer: v,
    active: 'events',
    body: html`<section class="card" aria-labelledby="delete-h">
      <h2 id="delete-h">${m.deleteQuestion(doc.name)}</h2>
      ${
        opts.hasOrders
          ? html`<p>${m.deleteHasOrders}</p>
              <p><a href="${base}#lifecycle">${m.backToEvent}</a></p>`
          : html`<p>
                ${m.deleteThe} <strong>${doc.slug}</strong> ${m.deleteExplained}
              </p>
              <form method="post" action="${base}/delete">
                ${hiddenCsrf(v.csrf)}
                <div class="actions">
                  <button type="submit" class="danger">${m.deleteButton}</button>
                  <a href="${base}">${m.cancel}</a>
                </div>
              </form>`
      }
    </section>`,
  });
}
