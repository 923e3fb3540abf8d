import { whenUtc } from './formats.ts';
import type { Role } from '../../platform/db/schema.ts';
import { CAPABILITIES } from '../../platform/http/auth.ts';
import { html } from '../../platform/http/html.ts';
import type { TokenView } from '../tokens/tokens.service.ts';
import { ROLES, type teamOf } from '../users/users.service.ts';
import type { Viewer } from './console.http.ts';
import {
  buttonForm,
  checkbox,
  consolePage,
  field,
  hiddenCsrf,
  select,
  type FieldErrors,
  type Flash,
} from './console-layout.view.ts';

/** The account's team (members, roles, invitations) and its API tokens, as owners manage them. */

const ROLE_TEXT: Record<Role, string> = {
  owner: 'Owner: everything, including team, tokens and payment settings',
  manager: 'Manager: events, orders, refunds, reports, themes',
  door: 'Door: check-in only',
  viewer: 'Viewer: read-only',
};

export type TeamData = Awaited<ReturnType<typeof teamOf>>;

export function teamPage(
  viewer: Viewer,
  { members, pending }: TeamData,
  opts: { errors?: FieldErrors; values?: Record<string, string>; flash: Flash | null },
): string {
  const base = `/console/a/${encodeURIComponent(viewer.account!.slug)}`;
  const roleOptions = ROLES.map((r) => ({ value: r, label: r }));
  return consolePage({
    title: 'Team',
    viewer,
    active: 'team',
    flash: opts.flash,
    body: html`<div class="table-wrap" tabindex="0" role="region" aria-label="Team">
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
                      <form method="post" action="${base}/team/${m.id}" class="actions">
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
          <form method="post" action="${base}/team" class="card">
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
  });
}

/** The tokens page; `secret` is a token just created, shown in this answer only. */
export function tokensPage(
  viewer: Viewer,
  tokens: TokenView[],
  events: Array<{ slug: string; name: string }>,
  opts: { secret?: string; errors?: FieldErrors; flash: Flash | null },
): string {
  const base = `/console/a/${encodeURIComponent(viewer.account!.slug)}`;
  return consolePage({
    title: 'API tokens',
    viewer,
    active: 'tokens',
    flash: opts.flash,
    body: html`${
      opts.secret
        ? html`<div class="card" role="status">
                <h2>Your new token</h2>
                <p>Copy it now: it is shown this once only.</p>
                <code class="secret">${opts.secret}</code>
              </div>`
        : ''
    }
          <div class="table-wrap" tabindex="0" role="region" aria-label="API tokens">
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
                    <td>${t.last_used_at ? whenUtc(t.last_used_at) : 'never'}</td>
                    <td>
                      ${buttonForm({ action: `${base}/tokens/${t.id}/revoke`, csrf: viewer.csrf, label: 'Revoke', kind: 'danger', ariaLabel: `Revoke ${t.name}` })}
                    </td>
                  </tr>`,
                )}
              </tbody>
            </table>
          </div>
          <form method="post" action="${base}/tokens" class="card">
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
  });
}
