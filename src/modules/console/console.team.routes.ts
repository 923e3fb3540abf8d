import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Role } from '../../platform/db/schema.ts';
import { AppError } from '../../platform/errors.ts';
import { CAPABILITIES } from '../../platform/http/auth.ts';
import { html } from '../../platform/http/html.ts';
import { createToken, listTokens, revokeToken } from '../tokens/tokens.service.ts';
import { invite } from '../users/credentials.service.ts';
import { changeMember, ROLES, teamOf } from '../users/users.service.ts';
import { checkForm, formList, requireRole, viewerOf, type Viewer, CONSOLE_FORM, CONSOLE_PAGE } from './console.http.ts';
import { send, see } from './console.http.ts';
import {
  buttonForm,
  checkbox,
  consolePage,
  field,
  flashOf,
  hiddenCsrf,
  select,
  type FieldErrors,
  type Flash,
} from './console-layout.view.ts';

const page = CONSOLE_PAGE;
const form = CONSOLE_FORM;

const ROLE_TEXT: Record<Role, string> = {
  owner: 'Owner: everything, including team, tokens and payment settings',
  manager: 'Manager: events, orders, refunds, reports, themes',
  door: 'Door: check-in only',
  viewer: 'Viewer: read-only',
};

/** Team (owners): members, roles, invitations. Tokens (owners): create with the secret shown once, revoke. */
export async function consoleTeamRoutes(app: FastifyInstance): Promise<void> {
  const ctx = app.ctx;
  const base = (v: Viewer) => `/console/a/${encodeURIComponent(v.account!.slug)}`;

  const teamPage = async (
    request: FastifyRequest,
    reply: FastifyReply,
    viewer: Viewer,
    opts: { errors?: FieldErrors; values?: Record<string, string>; flash?: Flash | null; status?: number } = {},
  ) => {
    const { members, pending } = await teamOf(ctx.db, viewer.account!.id);
    const roleOptions = ROLES.map((r) => ({ value: r, label: r }));
    return send(
      reply,
      consolePage({
        title: 'Team',
        viewer,
        active: 'team',
        flash: opts.flash ?? flashOf(request.query),
        body: html`<div class="table-wrap">
            <table>
              <thead>
                <tr><th scope="col">Person</th><th scope="col">Role</th><th scope="col"><span class="muted">Change</span></th></tr>
              </thead>
              <tbody>
                ${members.map(
                  (m) => html`<tr>
                    <td>${m.name || m.email}<div class="muted">${m.email}${m.totp_enabled ? ' · two-step sign-in' : ''}</div></td>
                    <td>${m.role}</td>
                    <td>
                      <form method="post" action="${base(viewer)}/team/${m.id}" class="actions">
                        ${hiddenCsrf(viewer.csrf)}
                        <label class="muted" for="role-${m.id}">Role for ${m.email}</label>
                        <select id="role-${m.id}" name="role">
                          ${roleOptions.map((o) => html`<option value="${o.value}" ${o.value === m.role ? 'selected' : ''}>${o.label}</option>`)}
                          <option value="remove">remove from the team</option>
                        </select>
                        <button type="submit" class="secondary">Apply</button>
                      </form>
                    </td>
                  </tr>`,
                )}
              </tbody>
            </table>
          </div>
          ${
            pending.length
              ? html`<h2>Invited</h2>
                <ul>
                  ${pending.map((p) => html`<li>${p.email} (${p.role})</li>`)}
                </ul>`
              : ''
          }
          <form method="post" action="${base(viewer)}/team" class="card">
            <h2>Invite someone</h2>
            ${hiddenCsrf(viewer.csrf)}
            <div class="grid">
              ${field({ name: 'email', label: 'Email', type: 'email', required: true, value: opts.values?.email, errors: opts.errors })}
              ${select({ name: 'role', label: 'Role', value: opts.values?.role ?? 'manager', options: roleOptions, errors: opts.errors })}
            </div>
            <ul class="muted">
              ${ROLES.map((r) => html`<li>${ROLE_TEXT[r]}</li>`)}
            </ul>
            <button type="submit">Send the invitation</button>
          </form>`,
      }),
      opts.status ?? 200,
    );
  };

  app.get<{ Params: { account: string } }>('/console/a/:account/team', page, async (request, reply) => {
    const viewer = await viewerOf(ctx, request, request.params.account);
    requireRole(viewer, 'team.manage');
    return teamPage(request, reply, viewer);
  });

  app.post<{ Params: { account: string } }>('/console/a/:account/team', form, async (request, reply) => {
    const viewer = await viewerOf(ctx, request, request.params.account);
    requireRole(viewer, 'team.manage');
    const form = await checkForm(ctx, request, viewer);
    try {
      await invite(ctx, {
        accountId: viewer.account!.id,
        email: form.email ?? '',
        role: form.role as Role,
        invitedBy: viewer.session.userId,
      });
    } catch (err) {
      if (err instanceof AppError && err.fields)
        return teamPage(request, reply, viewer, { errors: err.fields, values: form, status: 422 });
      throw err;
    }
    return see(reply, `${base(viewer)}/team?done=invited`);
  });

  app.post<{ Params: { account: string; user: string } }>('/console/a/:account/team/:user', form, async (request, reply) => {
    const viewer = await viewerOf(ctx, request, request.params.account);
    requireRole(viewer, 'team.manage');
    const form = await checkForm(ctx, request, viewer);
    const role = form.role === 'remove' ? null : (form.role as Role);
    if (role !== null && !ROLES.includes(role))
      return teamPage(request, reply, viewer, { flash: { kind: 'bad', text: 'Choose a role' }, status: 422 });
    try {
      await changeMember(ctx.db, viewer.account!.id, Number(request.params.user) || 0, role);
    } catch (err) {
      if (err instanceof AppError && (err.kind === 'conflict' || err.kind === 'not_found')) {
        return teamPage(request, reply, viewer, {
          flash: { kind: 'bad', text: err.message },
          status: err.kind === 'conflict' ? 409 : 404,
        });
      }
      throw err;
    }
    return see(reply, `${base(viewer)}/team?done=member-saved`);
  });

  // ---- API tokens
  const tokensPage = async (
    request: FastifyRequest,
    reply: FastifyReply,
    viewer: Viewer,
    opts: { secret?: string; errors?: FieldErrors; flash?: Flash | null; status?: number } = {},
  ) => {
    const tokens = await listTokens(ctx.db, viewer.account!.id);
    const events = await ctx.db
      .selectFrom('events')
      .select(['slug', 'name'])
      .where('account_id', '=', viewer.account!.id)
      .orderBy('starts_at', 'desc')
      .execute();
    return send(
      reply,
      consolePage({
        title: 'API tokens',
        viewer,
        active: 'tokens',
        flash: opts.flash ?? flashOf(request.query),
        body: html`${
          opts.secret
            ? html`<div class="card" role="status">
                <h2>Your new token</h2>
                <p>Copy it now: it is shown this once only.</p>
                <code class="secret">${opts.secret}</code>
              </div>`
            : ''
        }
          <div class="table-wrap">
            <table>
              <thead>
                <tr>
                  <th scope="col">Name</th><th scope="col">Capabilities</th><th scope="col">Events</th><th scope="col">Last used</th
                  ><th scope="col"><span class="muted">Revoke</span></th>
                </tr>
              </thead>
              <tbody>
                ${tokens.map(
                  (t) => html`<tr>
                    <td>${t.name}</td>
                    <td>${t.capabilities.join(', ') || '(none)'}</td>
                    <td>${t.events ? t.events.join(', ') : 'all'}</td>
                    <td>${t.last_used_at ? t.last_used_at.replace('T', ' ').replace('Z', ' UTC') : 'never'}</td>
                    <td>
                      ${buttonForm({ action: `${base(viewer)}/tokens/${t.id}/revoke`, csrf: viewer.csrf, label: 'Revoke', kind: 'danger', ariaLabel: `Revoke ${t.name}` })}
                    </td>
                  </tr>`,
                )}
              </tbody>
            </table>
          </div>
          <form method="post" action="${base(viewer)}/tokens" class="card">
            <h2>Create a token</h2>
            ${hiddenCsrf(viewer.csrf)} ${field({ name: 'name', label: 'Name', required: true, errors: opts.errors, hint: 'Who or what uses it, e.g. "Box office sync".' })}
            <fieldset class="field">
              <legend>Capabilities</legend>
              ${CAPABILITIES.map((c) => checkbox({ name: 'capabilities', value: c, label: c, checked: false, id: `cap-${c}` }))}
              ${opts.errors?.capabilities ? html`<p class="error">${opts.errors.capabilities.join('; ')}</p>` : ''}
            </fieldset>
            <fieldset class="field">
              <legend>Events</legend>
              <p class="hint">None ticked: every event, including future ones.</p>
              ${events.map((e) => checkbox({ name: 'events', value: e.slug, label: e.name, checked: false, id: `ev-${e.slug}` }))}
            </fieldset>
            <button type="submit">Create the token</button>
          </form>`,
      }),
      opts.status ?? 200,
    );
  };

  app.get<{ Params: { account: string } }>('/console/a/:account/tokens', page, async (request, reply) => {
    const viewer = await viewerOf(ctx, request, request.params.account);
    requireRole(viewer, 'tokens.manage');
    return tokensPage(request, reply, viewer);
  });

  app.post<{ Params: { account: string } }>('/console/a/:account/tokens', form, async (request, reply) => {
    const viewer = await viewerOf(ctx, request, request.params.account);
    requireRole(viewer, 'tokens.manage');
    const form = await checkForm(ctx, request, viewer);
    const events = formList(request, 'events');
    try {
      // an owner may grant anything in the account
      const made = await createToken(
        ctx,
        viewer.account!.id,
        { capabilities: 'all', scopes: 'all', events: null },
        { name: form.name ?? '', capabilities: formList(request, 'capabilities'), events: events.length ? events : null },
      );
      // shown in this answer only: no redirect, so the secret never sits in a URL or a later page
      return tokensPage(request, reply, viewer, {
        secret: made.secret,
        flash: { kind: 'ok', text: `Token "${made.token.name}" created.` },
        status: 201,
      });
    } catch (err) {
      if (err instanceof AppError && err.fields) {
        const errors: FieldErrors = {};
        for (const [k, v] of Object.entries(err.fields)) (errors[k.split('.')[0]!] ??= []).push(...v);
        return tokensPage(request, reply, viewer, { errors, status: 422 });
      }
      throw err;
    }
  });

  app.post<{ Params: { account: string; id: string } }>('/console/a/:account/tokens/:id/revoke', form, async (request, reply) => {
    const viewer = await viewerOf(ctx, request, request.params.account);
    requireRole(viewer, 'tokens.manage');
    await checkForm(ctx, request, viewer);
    // a person whose role manages tokens holds everything in the account, as when minting
    await revokeToken(
      ctx,
      viewer.account!.id,
      { capabilities: 'all', scopes: 'all', events: null },
      Number(request.params.id) || 0,
    );
    return see(reply, `${base(viewer)}/tokens?done=token-revoked`);
  });
}
