import { html } from '../../platform/http/html.ts';
import type { Viewer } from './console.http.ts';
import {
  buttonForm,
  consolePage,
  field,
  hiddenCsrf,
  publicPage,
  roleName,
  select,
  type FieldErrors,
  type Flash,
} from './console-layout.view.ts';
import { t } from './console-lang.ts';
import { plainMessage } from './plain-words.ts';
import { CATALOGUES, LANGS } from '../i18n/i18n.ts';

/**
 * The pages around signing in (sign-in, the second step, password reset, invitations) and the
 * person's own pages (their accounts, their password and second factor). The anonymous forms
 * carry the CSRF token of their own scope, given by the route.
 */

export function signInPage(opts: { csrf: string; email?: string; next?: string; error?: string }): string {
  const m = t();
  return publicPage(
    m.signInTitle,
    html`${opts.error ? html`<div class="flash bad" role="alert">${plainMessage(opts.error)}</div>` : ''}
        <form method="post" action="/console/sign-in">
          ${hiddenCsrf(opts.csrf)}
          <input type="hidden" name="next" value="${opts.next ?? '/console'}" />
          ${field({ name: 'email', label: m.email, type: 'email', value: opts.email, required: true, autocomplete: 'username' })}
          ${field({ name: 'password', label: m.password, type: 'password', required: true, autocomplete: 'current-password' })}
          <div class="actions">
            <button type="submit">${m.signInButton}</button>
            <a href="/console/forgot">${m.forgotLink}</a>
          </div>
        </form>`,
  );
}

export function codePage(csrf: string, next: string, error?: string): string {
  const m = t();
  return publicPage(
    m.codeTitle,
    html`${error ? html`<div class="flash bad" role="alert">${plainMessage(error)}</div>` : ''}
        <p>${m.codeIntro}</p>
        <form method="post" action="/console/sign-in/code">
          ${hiddenCsrf(csrf)}
          <input type="hidden" name="next" value="${next}" />
          ${field({ name: 'code', label: m.code, required: true, autocomplete: 'one-time-code', attrs: 'inputmode="numeric" pattern="[0-9 ]{6,7}"' })}
          <button type="submit">${m.continue}</button>
        </form>`,
  );
}

export function forgotPage(csrf: string): string {
  const m = t();
  return publicPage(
    m.forgotTitle,
    html`<p>${m.forgotIntro}</p>
          <form method="post" action="/console/forgot">
            ${hiddenCsrf(csrf)}
            ${field({ name: 'email', label: m.email, type: 'email', required: true, autocomplete: 'username' })}
            <div class="actions"><button type="submit">${m.sendLink}</button> <a href="/console/sign-in">${m.backToSignIn}</a></div>
          </form>`,
  );
}

/** The same answer whether or not the email is known. */
export function forgotSentPage(): string {
  const m = t();
  return publicPage(
    m.checkMailTitle,
    html`<p>${m.checkMailText}</p>
          <p><a href="/console/sign-in">${m.backToSignIn}</a></p>`,
  );
}

export function resetPage(token: string, csrf: string, errors: FieldErrors = {}): string {
  const m = t();
  return publicPage(
    m.newPasswordTitle,
    html`<form method="post" action="/console/reset/${token}">
        ${hiddenCsrf(csrf)}
        ${field({ name: 'password', label: m.newPassword, type: 'password', required: true, autocomplete: 'new-password', errors, hint: m.passwordHint })}
        <button type="submit">${m.setPassword}</button>
      </form>`,
  );
}

export function resetExpiredPage(): string {
  const m = t();
  return publicPage(m.linkExpiredTitle, html`<p>${m.linkExpiredText} <a href="/console/forgot">${m.askNewLink}</a>.</p>`);
}

/** An invitation: a person who already has a password confirms with it; a new one chooses a name and a password. */
export function invitePage(
  token: string,
  csrf: string,
  inv: { account_name: string; email: string; role: string },
  known: boolean,
  errors: FieldErrors = {},
  error?: string,
): string {
  const m = t();
  return publicPage(
    m.joinTitle(inv.account_name),
    html`${error ? html`<div class="flash bad" role="alert">${plainMessage(error)}</div>` : ''}
        <p>${m.invitedAs} <strong>${roleName(inv.role)}</strong> ${m.invitedWith(inv.email)}</p>
        <form method="post" action="/console/invite/${token}">
          ${hiddenCsrf(csrf)}
          ${
            known
              ? field({
                  name: 'password',
                  label: m.yourPassword,
                  type: 'password',
                  required: true,
                  autocomplete: 'current-password',
                  errors,
                })
              : html`${field({ name: 'name', label: m.yourName, autocomplete: 'name', errors })}
              ${field({ name: 'password', label: m.choosePassword, type: 'password', required: true, autocomplete: 'new-password', errors, hint: m.passwordHint })}`
          }
          <button type="submit">${m.acceptInvite}</button>
        </form>`,
  );
}

export function inviteExpiredPage(): string {
  return publicPage(t().inviteExpiredTitle, html`<p>${t().inviteExpiredText}</p>`);
}

export function accountsPage(viewer: Viewer): string {
  const m = t();
  return consolePage({
    title: m.yourAccounts,
    viewer,
    active: 'accounts',
    body: viewer.accounts.length
      ? html`<div class="table-wrap" tabindex="0" role="region" aria-label="${m.yourAccounts}"><table>
              <thead><tr><th scope="col">${m.account}</th><th scope="col">${m.yourRole}</th></tr></thead>
              <tbody>${viewer.accounts.map((a) => html`<tr><td><a href="/console/a/${a.slug}/events">${a.name}</a></td><td>${roleName(a.role)}</td></tr>`)}</tbody>
            </table></div>`
      : html`<p>${m.noAccounts}</p>`,
  });
}

/**
 * The person's sign-in settings. `totp` is the not yet confirmed second factor to set up: the
 * otpauth:// URI and its QR code (an image data URL); null when there is none.
 */
export function mePage(
  viewer: Viewer,
  totp: { uri: string; qr: string } | null,
  opts: { flash: Flash | null; errors?: FieldErrors },
): string {
  const uri = totp?.uri ?? null;
  const qr = totp?.qr ?? null;
  const secret = uri ? new URL(uri).searchParams.get('secret') : null;
  const m = t();
  return consolePage({
    title: m.yourSignIn,
    viewer,
    active: 'me',
    flash: opts.flash,
    body: html`<div class="card">
            <h2>${m.account}</h2>
            <p>${viewer.session.name ? html`${viewer.session.name} · ` : ''}${viewer.session.email}</p>
          </div>
          <div class="card">
            <h2>${m.password}</h2>
            <form method="post" action="/console/me/password">
              ${hiddenCsrf(viewer.csrf)}
              ${field({ name: 'current', label: m.currentPassword, type: 'password', required: true, autocomplete: 'current-password', errors: opts.errors })}
              ${field({ name: 'password', label: m.newPassword, type: 'password', required: true, autocomplete: 'new-password', errors: opts.errors, hint: m.newPasswordHint })}
              <button type="submit">${m.changePassword}</button>
            </form>
          </div>
          <div class="card">
            <h2>${m.twoStep}</h2>
            ${
              viewer.session.totpEnabled
                ? html`<p>${m.twoStepOn}</p>
                  <form method="post" action="/console/me/2fa/off">
                    ${hiddenCsrf(viewer.csrf)}
                    ${field({ name: 'password', label: m.passwordToTurnOff, type: 'password', required: true, autocomplete: 'current-password', errors: opts.errors })}
                    <button class="danger" type="submit">${m.turnOffTwoStep}</button>
                  </form>`
                : uri
                  ? html`<p>${m.scanCode}</p>
                    <p><img src="${qr}" width="200" height="200" alt="${m.qrAlt}" /></p>
                    <p>${m.key} <code>${secret}</code></p>
                    <form method="post" action="/console/me/2fa/confirm">
                      ${hiddenCsrf(viewer.csrf)}
                      ${field({ name: 'code', label: m.codeFromApp, required: true, autocomplete: 'one-time-code', errors: opts.errors, attrs: 'inputmode="numeric"' })}
                      <button type="submit">${m.turnOn}</button>
                    </form>`
                  : html`<p>${m.twoStepOff}</p>
                    ${buttonForm({ action: '/console/me/2fa/start', csrf: viewer.csrf, label: m.setUpTwoStep })}`
            }
          </div>
          <div class="card">
            <h2>${m.languageHeading}</h2>
            <form method="post" action="/console/me/language">
              ${hiddenCsrf(viewer.csrf)}
              ${select({
                name: 'language',
                label: m.languageLabel,
                value: viewer.session.language ?? '',
                errors: opts.errors,
                options: [
                  { value: '', label: m.languageBrowser },
                  ...LANGS.map((l) => ({ value: l, label: CATALOGUES[l].languageName })),
                ],
              })}
              <p class="hint">${m.languageHint}</p>
              <button type="submit">${m.saveLanguage}</button>
            </form>
          </div>`,
  });
}
