import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../platform/errors.ts';
import { html, type SafeHtml } from '../../platform/http/html.ts';
import { WEBHOOK_TYPES } from '../webhooks/types.ts';
import {
  createEndpoint,
  deleteEndpoint,
  deliveryAttempts,
  getEndpoint,
  listDeliveries,
  listEndpoints,
  redeliver,
  redeliverFailed,
  rotateSecret,
  sendTestEvent,
  updateEndpoint,
} from '../webhooks/webhooks.service.ts';
import { fromLocalInput } from './catalogue-form.ts';
import { checkForm, CONSOLE_FORM, CONSOLE_PAGE, formList, requireRole, viewerOf, type Viewer } from './console.http.ts';
import { send, see } from './console.http.ts';
import {
  buttonForm,
  checkbox,
  consolePage,
  field,
  flashOf,
  hiddenCsrf,
  type FieldErrors,
  type Flash,
} from './console-layout.view.ts';

const page = CONSOLE_PAGE;
const form = CONSOLE_FORM;

/** Webhooks (owners): endpoints, secrets shown once, a delivery log with every attempt, redelivery. */
export async function consoleWebhooksRoutes(app: FastifyInstance): Promise<void> {
  const ctx = app.ctx;
  const base = (v: Viewer) => `/console/a/${encodeURIComponent(v.account!.slug)}/webhooks`;

  const typeBoxes = (prefix: string, chosen: string[]): SafeHtml =>
    html`<fieldset class="field">
      <legend>Events</legend>
      <p class="hint">None ticked: every event.</p>
      ${WEBHOOK_TYPES.map((t) => checkbox({ name: 'events', value: t, label: t, checked: chosen.includes(t), id: `${prefix}-${t}` }))}
    </fieldset>`;

  const listPage = async (
    request: FastifyRequest,
    reply: FastifyReply,
    viewer: Viewer,
    opts: { secret?: { url: string; secret: string }; errors?: FieldErrors; flash?: Flash | null; status?: number } = {},
  ) => {
    const endpoints = await listEndpoints(ctx.db, viewer.account!.id);
    return send(
      reply,
      consolePage({
        title: 'Webhooks',
        viewer,
        active: 'webhooks',
        flash: opts.flash ?? flashOf(request.query),
        body: html`${
          opts.secret
            ? html`<div class="card" role="status">
                <h2>Signing secret for ${opts.secret.url}</h2>
                <p>Copy it now: it is shown this once only. Verify deliveries with any Standard Webhooks library.</p>
                <code class="secret">${opts.secret.secret}</code>
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
                <p><a href="${base(viewer)}/${e.id}">Delivery log</a></p>
                <form method="post" action="${base(viewer)}/${e.id}">
                  ${hiddenCsrf(viewer.csrf)}
                  ${field({ name: 'url', label: 'URL', value: e.url, id: `u-${e.id}`, type: 'url' })}
                  ${field({ name: 'description', label: 'Description', value: e.description, id: `d-${e.id}` })}
                  ${typeBoxes(`e${e.id}`, e.events)} ${checkbox({ name: 'enabled', label: 'Enabled', checked: e.enabled, id: `en-${e.id}` })}
                  <button type="submit">Save</button>
                </form>
                <div class="actions" style="margin-top:.75rem">
                  ${buttonForm({ action: `${base(viewer)}/${e.id}/test`, csrf: viewer.csrf, label: 'Send a test event', kind: 'secondary' })}
                  ${buttonForm({ action: `${base(viewer)}/${e.id}/rotate`, csrf: viewer.csrf, label: 'Rotate the secret', kind: 'secondary' })}
                  ${buttonForm({ action: `${base(viewer)}/${e.id}/delete`, csrf: viewer.csrf, label: 'Delete', kind: 'danger' })}
                </div>
              </div>
            </details>`,
          )}
          <form method="post" action="${base(viewer)}" class="card">
            <h2>Add an endpoint</h2>
            ${hiddenCsrf(viewer.csrf)}
            ${field({ name: 'url', label: 'URL', type: 'url', required: true, errors: opts.errors, hint: 'https:// address that receives POSTed JSON events.' })}
            ${field({ name: 'description', label: 'Description', errors: opts.errors })} ${typeBoxes('new', [])}
            <button type="submit">Add the endpoint</button>
          </form>`,
      }),
      opts.status ?? 200,
    );
  };

  const guard = async (request: FastifyRequest<{ Params: { account: string } }>) => {
    const viewer = await viewerOf(ctx, request, request.params.account);
    requireRole(viewer, 'webhooks.manage');
    return viewer;
  };

  app.get<{ Params: { account: string } }>('/console/a/:account/webhooks', page, async (request, reply) =>
    listPage(request, reply, await guard(request)),
  );

  app.post<{ Params: { account: string } }>('/console/a/:account/webhooks', form, async (request, reply) => {
    const viewer = await guard(request);
    const body = await checkForm(ctx, request, viewer);
    try {
      const made = await createEndpoint(ctx, viewer.account!.id, {
        url: body.url ?? '',
        description: body.description ?? '',
        events: formList(request, 'events'),
      });
      return listPage(request, reply, viewer, {
        secret: made,
        flash: { kind: 'ok', text: 'The endpoint was added.' },
        status: 201,
      });
    } catch (err) {
      if (err instanceof AppError && err.fields) return listPage(request, reply, viewer, { errors: err.fields, status: 422 });
      throw err;
    }
  });

  type E = { Params: { account: string; id: string } };
  const endpointId = (request: FastifyRequest<E>) => Number(request.params.id) || 0;

  app.post<E>('/console/a/:account/webhooks/:id', form, async (request, reply) => {
    const viewer = await guard(request);
    const body = await checkForm(ctx, request, viewer);
    try {
      await updateEndpoint(ctx, viewer.account!.id, endpointId(request), {
        url: body.url ?? '',
        description: body.description ?? '',
        events: formList(request, 'events'),
        enabled: body.enabled === '1',
      });
    } catch (err) {
      if (err instanceof AppError && err.fields) {
        return listPage(request, reply, viewer, { flash: { kind: 'bad', text: err.message }, status: 422 });
      }
      throw err;
    }
    return see(reply, `${base(viewer)}?done=saved`);
  });

  app.post<E>('/console/a/:account/webhooks/:id/rotate', form, async (request, reply) => {
    const viewer = await guard(request);
    await checkForm(ctx, request, viewer);
    const rotated = await rotateSecret(ctx, viewer.account!.id, endpointId(request));
    return listPage(request, reply, viewer, {
      secret: rotated,
      flash: { kind: 'ok', text: 'A new secret signs from now on; the old one also signs for 24 hours.' },
    });
  });

  app.post<E>('/console/a/:account/webhooks/:id/delete', form, async (request, reply) => {
    const viewer = await guard(request);
    await checkForm(ctx, request, viewer);
    await deleteEndpoint(ctx.db, viewer.account!.id, endpointId(request));
    return see(reply, `${base(viewer)}?done=removed`);
  });

  app.post<E>('/console/a/:account/webhooks/:id/test', form, async (request, reply) => {
    const viewer = await guard(request);
    await checkForm(ctx, request, viewer);
    await sendTestEvent(ctx, viewer.account!.id, endpointId(request));
    return see(reply, `${base(viewer)}/${endpointId(request)}?done=queued`);
  });

  // ---- The delivery log of one endpoint
  const logPage = async (request: FastifyRequest<E>, reply: FastifyReply, viewer: Viewer, flash?: Flash, status = 200) => {
    const id = endpointId(request);
    const endpoint = await getEndpoint(ctx.db, viewer.account!.id, id);
    const q = request.query as { after?: string };
    const { deliveries, next_after } = await listDeliveries(ctx.db, viewer.account!.id, id, { limit: '50', after: q.after });
    const attempts = await Promise.all(deliveries.map((d) => deliveryAttempts(ctx.db, viewer.account!.id, id, d.id)));
    return send(
      reply,
      consolePage({
        title: `Deliveries to ${endpoint.url}`,
        viewer,
        active: 'webhooks',
        flash: flash ?? flashOf(request.query),
        body: html`<p><a href="${base(viewer)}">All endpoints</a></p>
          <form method="post" action="${base(viewer)}/${id}/redeliver-failed" class="card">
            <h2>Send failed deliveries again</h2>
            ${hiddenCsrf(viewer.csrf)}
            ${field({ name: 'since', label: 'Failed since (UTC)', type: 'datetime-local', required: true })}
            <button type="submit" class="secondary">Redeliver</button>
          </form>
          ${
            deliveries.length
              ? html`<div class="table-wrap">
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
                        <td>${d.type}<div class="muted">${d.webhook_id} · ${d.created_at.replace('T', ' ').replace(/(\.\d+)?Z$/, ' UTC')}</div></td>
                        <td>${d.status}${d.next_attempt_at ? html`<div class="muted">next ${d.next_attempt_at.replace('T', ' ').replace(/(\.\d+)?Z$/, ' UTC')}</div>` : ''}</td>
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
                          ${buttonForm({ action: `${base(viewer)}/${id}/deliveries/${d.id}/redeliver`, csrf: viewer.csrf, label: 'Redeliver', kind: 'secondary', ariaLabel: `Redeliver ${d.webhook_id}` })}
                        </td>
                      </tr>`,
                    )}
                  </tbody>
                </table>
              </div>
              ${next_after ? html`<p><a href="${base(viewer)}/${id}?after=${next_after}">Older deliveries</a></p>` : ''}`
              : html`<p class="muted">No deliveries yet.</p>`
          }`,
      }),
      status,
    );
  };

  app.get<E>('/console/a/:account/webhooks/:id', page, async (request, reply) => logPage(request, reply, await guard(request)));

  app.post<{ Params: { account: string; id: string; delivery: string } }>(
    '/console/a/:account/webhooks/:id/deliveries/:delivery/redeliver',
    form,
    async (request, reply) => {
      const viewer = await guard(request);
      await checkForm(ctx, request, viewer);
      await redeliver(ctx, viewer.account!.id, Number(request.params.id) || 0, Number(request.params.delivery) || 0);
      return see(reply, `${base(viewer)}/${Number(request.params.id)}?done=queued`);
    },
  );

  app.post<E>('/console/a/:account/webhooks/:id/redeliver-failed', form, async (request, reply) => {
    const viewer = await guard(request);
    const body = await checkForm(ctx, request, viewer);
    const since = fromLocalInput(body.since ?? '', 'UTC');
    if (!since) return logPage(request, reply, viewer, { kind: 'bad', text: 'Give a date and time.' }, 422);
    const n = await redeliverFailed(ctx, viewer.account!.id, endpointId(request), new Date(since));
    return logPage(request, reply, viewer, { kind: 'ok', text: `${n} failed deliveries will be sent again.` });
  });
}
