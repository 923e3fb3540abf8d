import { whenUtc } from './formats.ts';
import { html, type SafeHtml } from '../../platform/http/html.ts';
import { WEBHOOK_TYPES } from '../webhooks/types.ts';
import type { deliveryAttempts, DeliveryView, EndpointView } from '../webhooks/webhooks.service.ts';
import type { Viewer } from './console.http.ts';
import { buttonForm, checkbox, consolePage, field, hiddenCsrf, type FieldErrors, type Flash } from './console-layout.view.ts';

/** The webhooks pages (owners): the endpoints with their forms, and one endpoint's delivery log. */

/** Where an account's webhook pages live. */
export const webhooksBase = (v: Viewer) => `/console/a/${encodeURIComponent(v.account!.slug)}/webhooks`;

const typeBoxes = (prefix: string, chosen: string[]): SafeHtml =>
  html`<fieldset class="field">
      <legend>Events</legend>
      <p class="hint">None ticked: every event.</p>
      ${WEBHOOK_TYPES.map((t) => checkbox({ name: 'events', value: t, label: t, checked: chosen.includes(t), id: `${prefix}-${t}` }))}
    </fieldset>`;

export interface WebhooksListView {
  viewer: Viewer;
  endpoints: EndpointView[];
  flash: Flash | null;
  /** a secret just made (created or rotated): shown this once */
  secret?: { url: string; secret: string };
  /** the new endpoint's form, refused */
  errors?: FieldErrors;
}

/** Every endpoint (each folds open to its form and actions), and the form that adds one. */
export function webhooksListPage(v: WebhooksListView): string {
  const { viewer, endpoints } = v;
  const base = webhooksBase(viewer);
  const body = html`${
    v.secret
      ? html`<div class="card" role="status">
                <h2>Signing secret for ${v.secret.url}</h2>
                <p>Copy it now: it is shown this once only. Verify deliveries with any Standard Webhooks library.</p>
                <code class="secret">${v.secret.secret}</code>
              </div>`
      : ''
  }
          ${endpoints.length === 0 ? html`<p class="muted">No endpoints yet.</p>` : ''}
          ${endpoints.map(
            (e) => html`<details class="item">
              <summary>
                <strong>${e.url}</strong>
                <span>${e.enabled ? 'enabled' : html`<span class="pill">disabled${e.disabled_reason ? `: ${e.disabled_reason}` : ''}</span>`}</span>
                <span class="muted">${e.events.length ? e.events.join(', ') : 'every event'}</span>
                <span class="edit" aria-hidden="true">Edit</span>
              </summary>
              <div class="body">
                <p><a href="${base}/${e.id}">Delivery log</a></p>
                <form method="post" action="${base}/${e.id}">
                  ${hiddenCsrf(viewer.csrf)}
                  ${field({ name: 'url', label: 'URL', value: e.url, id: `u-${e.id}`, type: 'url' })}
                  ${field({ name: 'description', label: 'Description', value: e.description, id: `d-${e.id}` })}
                  ${typeBoxes(`e${e.id}`, e.events)} ${checkbox({ name: 'enabled', label: 'Enabled', checked: e.enabled, id: `en-${e.id}` })}
                  <button type="submit">Save</button>
                </form>
                <div class="actions" style="margin-top:.75rem">
                  ${buttonForm({ action: `${base}/${e.id}/test`, csrf: viewer.csrf, label: 'Send a test event', kind: 'secondary' })}
                  ${buttonForm({ action: `${base}/${e.id}/rotate`, csrf: viewer.csrf, label: 'Rotate the secret', kind: 'secondary' })}
                  ${buttonForm({ action: `${base}/${e.id}/delete`, csrf: viewer.csrf, label: 'Delete', kind: 'danger' })}
                </div>
              </div>
            </details>`,
          )}
          <form method="post" action="${base}" class="card">
            <h2>Add an endpoint</h2>
            ${hiddenCsrf(viewer.csrf)}
            ${field({ name: 'url', label: 'URL', type: 'url', required: true, errors: v.errors, hint: 'https:// address that receives POSTed JSON events.' })}
            ${field({ name: 'description', label: 'Description', errors: v.errors })} ${typeBoxes('new', [])}
            <button type="submit">Add the endpoint</button>
          </form>`;
  return consolePage({ title: 'Webhooks', viewer, active: 'webhooks', flash: v.flash, body });
}

export interface DeliveryLogView {
  viewer: Viewer;
  endpoint: EndpointView;
  /** one page of deliveries, newest first, and where the next page starts */
  deliveries: DeliveryView[];
  next_after: string | null;
  /** each delivery's attempts, in the order of `deliveries` */
  attempts: Array<Awaited<ReturnType<typeof deliveryAttempts>>>;
  flash: Flash | null;
}

/** One endpoint's delivery log: every attempt of every delivery, redelivery one by one or all failed since. */
export function deliveryLogPage(v: DeliveryLogView): string {
  const { viewer, endpoint, deliveries, next_after, attempts } = v;
  const base = webhooksBase(viewer);
  const id = endpoint.id;
  const body = html`<p><a href="${base}">All endpoints</a></p>
          <form method="post" action="${base}/${id}/redeliver-failed" class="card">
            <h2>Send failed deliveries again</h2>
            ${hiddenCsrf(viewer.csrf)}
            ${field({ name: 'since', label: 'Failed since (UTC)', type: 'datetime-local', required: true })}
            <button type="submit" class="secondary">Redeliver</button>
          </form>
          ${
            deliveries.length
              ? html`<div class="table-wrap" tabindex="0" role="region" aria-label="Deliveries">
                <table>
                  <thead>
                    <tr>
                      <th scope="col">Event</th><th scope="col">Status</th><th scope="col">Attempts</th><th scope="col"
                        ><span class="muted">Redeliver</span></th
                      >
                    </tr>
                  </thead>
                  <tbody>
                    ${deliveries.map(
                      (d, i) => html`<tr>
                        <td>${d.type}<div class="muted">${d.webhook_id} · ${whenUtc(d.created_at)}</div></td>
                        <td>${d.status}${d.next_attempt_at ? html`<div class="muted">next ${whenUtc(d.next_attempt_at)}</div>` : ''}</td>
                        <td>
                          <ul class="muted" style="margin:0;padding-left:1rem">
                            ${attempts[i]!.map(
                              (a) =>
                                html`<li>
                                  ${a.status_code ?? 'no answer'} · ${a.duration_ms} ms${a.error ? html` · ${a.error}` : ''}${
                                    a.response_body ? html`<div><code>${a.response_body.slice(0, 200)}</code></div>` : ''
                                  }
                                </li>`,
                            )}
                          </ul>
                        </td>
                        <td>
                          ${buttonForm({ action: `${base}/${id}/deliveries/${d.id}/redeliver`, csrf: viewer.csrf, label: 'Redeliver', kind: 'secondary', ariaLabel: `Redeliver ${d.webhook_id}` })}
                        </td>
                      </tr>`,
                    )}
                  </tbody>
                </table>
              </div>
              ${next_after ? html`<p><a href="${base}/${id}?after=${next_after}">Older deliveries</a></p>` : ''}`
              : html`<p class="muted">No deliveries yet.</p>`
          }`;
  return consolePage({ title: `Deliveries to ${endpoint.url}`, viewer, active: 'webhooks', flash: v.flash, body });
}
