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
  emptyState,
  field,
  nextStep,
  hiddenCsrf,
  select,
  type FieldErrors,
  type Flash,
  roleName,
} from './console-layout.view.ts';
import { t } from './console-lang.ts';
import type { ConsoleMessages } from '../i18n/i18n.ts';

/** The account's team (members, roles, invitations) and its API tokens, as owners manage them. */

const ROLE_TEXT: Record<Role, (m: ConsoleMessages) => string> = {
  owner: (m) => m.roleTextOwner,
  manager: (m) => m.roleTextManager,
  door: (m) => m.roleTextDoor,
  viewer: (m) => m.roleTextViewer,
};

export type TeamData = Awaited<ReturnType<typeof teamOf>>;

export function teamPage(
  viewer: Viewer,
  { members, pending }: TeamData,
  opts: { errors?: FieldErrors; values?: Record<string, string>; flash: Flash | null },
): string {
  const base = `/console/a/${encodeURIComponent(viewer.account!.slug)}`;
  const roleOptions = ROLES.map((r) => ({ value: r, label: roleName(r) }));
  const tm = t();
  return consolePage({
    title: tm.team,
    viewer,
    active: 'team',
    flash: opts.flash,
    body: html`${
      members.length <= 1 && !pending.length
        ? emptyState({ name: 'team', text: tm.emptyTeam, next: nextStep('#invite', tm.emptyInvite) })
        : ''
    }
          <div class="table-wrap" tabindex="0" role="region" aria-label="${tm.team}">
            <table>
              <thead>
                <tr><th scope="col">${tm.person}</th><th scope="col">${tm.role}</th><th scope="col"><span class="muted">${tm.change}</span></th></tr>
              </thead>
              <tbody>
                ${members.map(
                  (m) => html`<tr>
                    <td>${m.name || m.email}<div class="muted">${m.email}${m.totp_enabled ? tm.withTwoStep : ''}</div></td>
                    <td>${roleName(m.role)}</td>
                    <td>
                      <form method="post" action="${base}/team/${m.id}" class="actions">
                        ${hiddenCsrf(viewer.csrf)}
                        <label class="muted" for="role-${m.id}">${tm.roleFor(m.email)}</label>
                        <select id="role-${m.id}" name="role">
                          ${roleOptions.map((o) => html`<option value="${o.value}" ${o.value === m.role ? 'selected' : ''}>${o.label}</option>`)}
                          <option value="remove">${tm.removeFromTeam}</option>
                        </select>
                        <button type="submit" class="secondary">${tm.apply}</button>
                      </form>
                    </td>
                  </tr>`,
                )}
              </tbody>
            </table>
          </div>
          ${
            pending.length
              ? html`<h2>${tm.invited}</h2>
                <ul>
                  ${pending.map((p) => html`<li>${p.email} (${roleName(p.role)})</li>`)}
                </ul>`
              : ''
          }
          <form method="post" action="${base}/team" class="card" id="invite">
            <h2>${tm.inviteSomeone}</h2>
            ${hiddenCsrf(viewer.csrf)}
            <div class="grid">
              ${field({ name: 'email', label: tm.email, type: 'email', required: true, value: opts.values?.email, errors: opts.errors })}
              ${select({ name: 'role', label: tm.role, value: opts.values?.role ?? 'manager', options: roleOptions, errors: opts.errors })}
            </div>
            <ul class="muted">
              ${ROLES.map((r) => html`<li>${ROLE_TEXT[r](tm)}</li>`)}
            </ul>
            <button type="submit">${tm.sendInvitation}</button>
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
  const m = t();
  return consolePage({
    title: m.apiTokens,
    viewer,
    active: 'tokens',
    flash: opts.flash,
    body: html`${
      opts.secret
        ? html`<div class="card" role="status">
                <h2>${m.newToken}</h2>
                <p>${m.copyNow}</p>
                <code class="secret">${opts.secret}</code>
              </div>`
        : ''
    }
          ${
            tokens.length
              ? html`<div class="table-wrap" tabindex="0" role="region" aria-label="${m.apiTokens}">
            <table>
              <thead>
                <tr>
                  <th scope="col">${m.tokenName}</th><th scope="col">${m.capabilities}</th><th scope="col">${m.tokenEvents}</th><th scope="col">${m.lastUsed}</th
                  ><th scope="col"><span class="muted">${m.revoke}</span></th>
                </tr>
              </thead>
              <tbody>
                ${tokens.map(
                  (tk) => html`<tr>
                    <td>${tk.name}</td>
                    <td>${tk.capabilities.join(', ') || m.noCapabilities}</td>
                    <td>${tk.events ? tk.events.join(', ') : m.allEvents}</td>
                    <td>${tk.last_used_at ? whenUtc(tk.last_used_at) : m.never}</td>
                    <td>
                      ${buttonForm({ action: `${base}/tokens/${tk.id}/revoke`, csrf: viewer.csrf, label: m.revoke, kind: 'danger', ariaLabel: m.revokeNamed(tk.name) })}
                    </td>
                  </tr>`,
                )}
              </tbody>
            </table>
          </div>`
              : emptyState({ name: 'tokens', text: m.emptyTokens, next: nextStep('#new-token', m.emptyCreateToken) })
          }
          <form method="post" action="${base}/tokens" class="card" id="new-token">
            <h2>${m.createToken}</h2>
            ${hiddenCsrf(viewer.csrf)} ${field({ name: 'name', label: m.tokenName, required: true, errors: opts.errors, hint: m.tokenNameHint })}
            <fieldset class="field">
              <legend>${m.capabilities}</legend>
              ${CAPABILITIES.map((c) => checkbox({ name: 'capabilities', value: c, label: c, checked: false, id: `cap-${c}` }))}
              ${opts.errors?.capabilities ? html`<p class="error">${opts.errors.capabilities.join('; ')}</p>` : ''}
            </fieldset>
            <fieldset class="field">
              <legend>${m.tokenEvents}</legend>
              <p class="hint">${m.everyEvent}</p>
              ${events.map((e) => checkbox({ name: 'events', value: e.slug, label: e.name, checked: false, id: `ev-${e.slug}` }))}
            </fieldset>
            <button type="submit">${m.createTokenButton}</button>
          </form>`,
  });
}
