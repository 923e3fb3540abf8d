import { html } from '../../platform/http/html.ts';
import type { Viewer } from './console.http.ts';
import { buttonForm, consolePage, field, hiddenCsrf, publicPage, type FieldErrors, type Flash } from './console-layout.view.ts';

/**
 * The pages around signing in (sign-in, the second step, password reset, invitations) and the
 * person's own pages (their accounts, their password and second factor). The anonymous forms
 * carry the CSRF token of their own scope, given by the route.
 */

export function signInPage(opts: { csrf: string; email?: string; next?: string; error?: string }): string {
  return publicPage(
    'Sign in',
    html`${opts.error ? html`<div class="flash bad" role="alert">${opts.error}</div>` : ''}
        <form method="post" action="/console/sign-in">
          ${hiddenCsrf(opts.csrf)}
          <input type="hidden" name="next" value="${opts.next ?? '/console'}" />
          ${field({ name: 'email', label: 'Email', type: 'email', value: opts.email, required: true, autocomplete: 'username' })}
          ${field({ name: 'password', label: 'Password', type: 'password', required: true, autocomplete: 'current-password' })}
          <div class="actions">
            <button type="submit">Sign in</button>
            <a href="/console/forgot">Forgot your password?</a>
          </div>
        </form>`,
  );
}

export function codePage(csrf: string, next: string, error?: string): string {
  return publicPage(
    'Enter your code',
    html`${error ? html`<div class="flash bad" role="alert">${error}</div>` : ''}
        <p>Open your authenticator app and enter the 6-digit code for admit.</p>
        <form method="post" action="/console/sign-in/code">
          ${hiddenCsrf(csrf)}
          <input type="hidden" name="next" value="${next}" />
          ${field({ name: 'code', label: 'Code', required: true, autocomplete: 'one-time-code', attrs: 'inputmode="numeric" pattern="[0-9 ]{6,7}"' })}
          <button type="submit">Continue</button>
        </form>`,
  );
}

export function forgotPage(csrf: string): string {
  return publicPage(
    'Reset your password',
    html`<p>Enter the email you sign in with. We will mail you a link to choose a new password.</p>
          <form method="post" action="/console/forgot">
            ${hiddenCsrf(csrf)}
            ${field({ name: 'email', label: 'Email', type: 'email', required: true, autocomplete: 'username' })}
            <div class="actions"><button type="submit">Send the link</button> <a href="/console/sign-in">Back to sign-in</a></div>
          </form>`,
  );
}

/** The same answer whether or not the email is known. */
export function forgotSentPage(): string {
  return publicPage(
    'Check your mail',
    html`<p>If an account uses that email, a link to reset its password is on its way. It works for one hour.</p>
          <p><a href="/console/sign-in">Back to sign-in</a></p>`,
  );
}

export function resetPage(token: string, csrf: string, errors: FieldErrors = {}): string {
  return publicPage(
    'Choose a new password',
    html`<form method="post" action="/console/reset/${token}">
        ${hiddenCsrf(csrf)}
        ${field({ name: 'password', label: 'New password', type: 'password', required: true, autocomplete: 'new-password', errors, hint: 'At least 10 characters.' })}
        <button type="submit">Set the password</button>
      </form>`,
  );
}

export function resetExpiredPage(): string {
  return publicPage(
    'Link expired',
    html`<p>This link has expired or was used. <a href="/console/forgot">Ask for a new one</a>.</p>`,
  );
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
  return publicPage(
    `Join ${inv.account_name}`,
    html`${error ? html`<div class="flash bad" role="alert">${error}</div>` : ''}
        <p>You were invited as <strong>${inv.role}</strong> with ${inv.email}.</p>
        <form method="post" action="/console/invite/${token}">
          ${hiddenCsrf(csrf)}
          ${
            known
              ? field({
                  name: 'password',
                  label: 'Your password',
                  type: 'password',
                  required: true,
                  autocomplete: 'current-password',
                  errors,
                })
              : html`${field({ name: 'name', label: 'Your name', autocomplete: 'name', errors })}
              ${field({ name: 'password', label: 'Choose a password', type: 'password', required: true, autocomplete: 'new-password', errors, hint: 'At least 10 characters.' })}`
          }
          <button type="submit">Accept and sign in</button>
        </form>`,
  );
}

export function inviteExpiredPage(): string {
  return publicPage('Invitation expired', html`<p>This invitation has expired or was already used.</p>`);
}

export function accountsPage(viewer: Viewer): string {
  return consolePage({
    title: 'Your accounts',
    viewer,
    active: 'accounts',
    body: viewer.accounts.length
      ? html`<div class="table-wrap" tabindex="0" role="region" aria-label="Your accounts"><table>
              <thead><tr><th scope="col">Account</th><th scope="col">Your role</th></tr></thead>
              <tbody>${viewer.accounts.map((a) => html`<tr><td><a href="/console/a/${a.slug}/events">${a.name}</a></td><td>${a.role}</td></tr>`)}</tbody>
            </table></div>`
      : html`<p>You are not a member of any account yet. Ask an owner to invite you.</p>`,
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
  return consolePage({
    title: 'Your sign-in',
    viewer,
    active: 'me',
    flash: opts.flash,
    body: html`<div class="card">
            <h2>Account</h2>
            <p>${viewer.session.name ? html`${viewer.session.name} · ` : ''}${viewer.session.email}</p>
          </div>
          <div class="card">
            <h2>Password</h2>
            <form method="post" action="/console/me/password">
              ${hiddenCsrf(viewer.csrf)}
              ${field({ name: 'current', label: 'Current password', type: 'password', required: true, autocomplete: 'current-password', errors: opts.errors })}
              ${field({ name: 'password', label: 'New password', type: 'password', required: true, autocomplete: 'new-password', errors: opts.errors, hint: 'At least 10 characters. Your other sessions are signed out.' })}
              <button type="submit">Change the password</button>
            </form>
          </div>
          <div class="card">
            <h2>Two-step sign-in</h2>
            ${
              viewer.session.totpEnabled
                ? html`<p>On: signing in asks for a code from your authenticator app.</p>
                  <form method="post" action="/console/me/2fa/off">
                    ${hiddenCsrf(viewer.csrf)}
                    ${field({ name: 'password', label: 'Your password (to turn it off)', type: 'password', required: true, autocomplete: 'current-password', errors: opts.errors })}
                    <button class="danger" type="submit">Turn off two-step sign-in</button>
                  </form>`
                : uri
                  ? html`<p>Scan this code with an authenticator app (or type the key), then enter the 6-digit code it shows.</p>
                    <p><img src="${qr}" width="200" height="200" alt="QR code for your authenticator app" /></p>
                    <p>Key: <code>${secret}</code></p>
                    <form method="post" action="/console/me/2fa/confirm">
                      ${hiddenCsrf(viewer.csrf)}
                      ${field({ name: 'code', label: 'Code from the app', required: true, autocomplete: 'one-time-code', errors: opts.errors, attrs: 'inputmode="numeric"' })}
                      <button type="submit">Turn on</button>
                    </form>`
                  : html`<p>Off. Add a second step to signing in: a code from an authenticator app on your phone.</p>
                    ${buttonForm({ action: '/console/me/2fa/start', csrf: viewer.csrf, label: 'Set up two-step sign-in' })}`
            }
          </div>`,
  });
}
