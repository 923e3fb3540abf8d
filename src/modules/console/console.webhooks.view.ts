import { whenUtc } from './formats.ts';
import { t } from './console-lang.ts';
import { html, type SafeHtml } from '../../platform/http/html.ts';
import { WEBHOOK_TYPES } from '../webhooks/types.ts';
import type { deliveryAttempts, DeliveryView, EndpointView } from '../webhooks/webhooks.service.ts';
import type { Viewer } from './console.http.ts';
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

/** The webhooks pages (owners): the endpoints with their forms, and one endpoint's delivery log. */

/** Where an account's webhook pages live. */
export const webhooksBase = (v: Viewer) => `/console/a/${encodeURIComponent(v.account!.slug)}/webhooks`;

const typeBoxes = (prefix: string, chosen: string[]): SafeHtml =>
  html`<fieldset class="field">
      <legend>${t().whEvents}</legend>
      <p class="hint">${t().whNoneTicked}</p>
      ${WEBHOOK_TYPES.map((w) => checkbox({ name: 'events', value: w, label: w, checked: chosen.includes(w), id: `${prefix}-${w}` }))}
    </fieldset>`;

/** A delivery's status in words (the stored value when there are none for it). */
const deliveryStatus = (status: string): string => {
  const m = t();
  return status === 'pending'
    ? m.whStatusPending
    : status === 'succeeded'
      ? m.whStatusSucceeded
      : status === 'failed'
        ? m.whStatusFailed
        : status;
};

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
  const m = t();
  const body = html`${
    v.secret
      ? html`<div class="card" role="status">
                <h2>${m.whSecretFor(v.secret.url)}</h2>
                <p>${m.whSecretOnce}</p>
                <code class="secret">${v.secret.secret}</code>
              </div>`
      : ''
  }
          ${endpoints.length === 0 ? emptyState({ name: 'webhooks', text: m.emptyWebhooks, next: nextStep('#add-endpoint', m.emptyAddEndpoint) }) : ''}
          ${endpoints.map(
            (e) => html`<details class="item">
              <summary>
                <strong>${e.url}</strong>
                <span>${e.enabled ? m.whEnabled : html`<span class="pill">${e.disabled_reason ? m.whDisabledBecause(e.disabled_reason) : m.whDisabled}</span>`}</span>
                <span class="muted">${e.events.length ? e.events.join(', ') : m.whEveryEvent}</span>
                <span class="edit" aria-hidden="true">${m.whEdit}</span>
              </summary>
              <div class="body">
                <p><a href="${base}/${e.id}">${m.whDeliveryLog}</a></p>
                <form method="post" action="${base}/${e.id}">
                  ${hiddenCsrf(viewer.csrf)}
                  ${field({ name: 'url', label: m.whUrl, value: e.url, id: `u-${e.id}`, type: 'url' })}
                  ${field({ name: 'description', label: m.whDescription, value: e.description, id: `d-${e.id}` })}
                  ${typeBoxes(`e${e.id}`, e.events)} ${checkbox({ name: 'enabled', label: m.whEnabledBox, checked: e.enabled, id: `en-${e.id}` })}
                  <button type="submit">${m.whSave}</button>
                </form>
                <div class="actions" style="margin-top:.75rem">
                  ${buttonForm({ action: `${base}/${e.id}/test`, csrf: viewer.csrf, label: m.whSendTest, kind: 'secondary' })}
                  ${buttonForm({ action: `${base}/${e.id}/rotate`, csrf: viewer.csrf, label: m.whRotate, kind: 'secondary' })}
                  ${buttonForm({ action: `${base}/${e.id}/delete`, csrf: viewer.csrf, label: m.whDelete, kind: 'danger' })}
                </div>
              </div>
            </details>`,
          )}
          <form method="post" action="${base}" class="card" id="add-endpoint">
            <h2>${m.whAddTitle}</h2>
            ${hiddenCsrf(viewer.csrf)}
            ${field({ name: 'url', label: m.whUrl, type: 'url', required: true, errors: v.errors, hint: m.whUrlHint })}
            ${field({ name: 'description', label: m.whDescription, errors: v.errors })} ${typeBoxes('new', [])}
            <button type="submit">${m.whAddButton}</button>
          </form>`;
  return consolePage({ title: m.navWebhooks, viewer, active: 'webhooks', flash: v.flash, body });
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
  const m = t();
  const body = html`<p><a href="${base}">${m.whAllEndpoints}</a></p>
          <form method="post" action="${base}/${id}/redeliver-failed" class="card">
            <h2>${m.whSendFailedAgain}</h2>
            ${hiddenCsrf(viewer.csrf)}
            ${field({ name: 'since', label: m.whFailedSince, type: 'datetime-local', required: true })}
            <button type="submit" class="secondary">${m.whRedeliver}</button>
          </form>
          ${
            deliveries.length
              ? html`<div class="table-wrap" tabindex="0" role="region" aria-label="${m.whDeliveries}">
                <table>
                  <thead>
                    <tr>
                      <th scope="col">${m.whEvent}</th><th scope="col">${m.status}</th><th scope="col">${m.whAttempts}</th><th scope="col"
                        ><span class="muted">${m.whRedeliver}</span></th
                      >
                    </tr>
                  </thead>
                  <tbody>
                    ${deliveries.map(
                      (d, i) => html`<tr>
                        <td>${d.type}<div class="muted">${d.webhook_id} · ${whenUtc(d.created_at)}</div></td>
                        <td>${deliveryStatus(d.status)}${d.next_attempt_at ? html`<div class="muted">${m.whNext(whenUtc(d.next_attempt_at))}</div>` : ''}</td>
                        <td>
                          <ul class="muted" style="margin:0;padding-left:1rem">
                            ${attempts[i]!.map(
                              (a) =>
                                html`<li>
                                  ${a.status_code ?? m.whNoAnswer} · ${a.duration_ms} ms${a.error ? html` · ${a.error}` : ''}${
                                    a.response_body ? html`<div><code>${a.response_body.slice(0, 200)}</code></div>` : ''
                                  }
                                </li>`,
                            )}
                          </ul>
                        </td>
                        <td>
                          ${buttonForm({ action: `${base}/${id}/deliveries/${d.id}/redeliver`, csrf: viewer.csrf, label: m.whRedeliver, kind: 'secondary', ariaLabel: m.whRedeliverOne(d.webhook_id) })}
                        </td>
                      </tr>`,
                    )}
                  </tbody>
                </table>
              </div>
              ${next_after ? html`<p><a href="${base}/${id}?after=${next_after}">${m.whOlder}</a></p>` : ''}`
              : emptyState({
                  name: 'deliveries',
                  text: m.emptyDeliveries,
                  next: buttonForm({ action: `${base}/${id}/test`, csrf: viewer.csrf, label: m.whSendTest }),
                })
          }`;
  return consolePage({ title: m.whDeliveriesTo(endpoint.url), viewer, active: 'webhooks', flash: v.flash, body });
}
