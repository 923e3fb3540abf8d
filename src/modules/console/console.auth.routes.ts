import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import QRCode from 'qrcode';
import { AppError } from '../../platform/errors.ts';
import { html } from '../../platform/http/html.ts';
import {
  beginTotp,
  completeTotp,
  confirmTotp,
  disableTotp,
  endSession,
  findUserByEmail,
  sessionFor,
  startSession,
  totpUri,
} from '../users/users.service.ts';
import {
  acceptInvitation,
  changePassword,
  checkPassword,
  findInvitation,
  isOwnPassword,
  requestPasswordReset,
  resetPassword,
  resetTokenValid,
} from '../users/credentials.service.ts';
import {
  anonymousCsrf,
  checkAnonymousForm,
  CONSOLE_FORM,
  CONSOLE_PAGE,
  checkForm,
  readCookie,
  safeNext,
  SESSION_COOKIE,
  setSessionCookie,
  tokenScope,
  viewerOf,
} from './console.http.ts';
import { send, see } from './console.http.ts';
import { buttonForm, consolePage, field, flashOf, hiddenCsrf, publicPage, type FieldErrors } from './console-layout.view.ts';

const page = CONSOLE_PAGE;
const form = CONSOLE_FORM;

/** Sign-in, second factor, sign-out, password reset, invitations and the person's own settings. */
export async function consoleAuthRoutes(app: FastifyInstance): Promise<void> {
  const ctx = app.ctx;

  const signInForm = async (opts: { email?: string; next?: string; error?: string; status?: number }) =>
    publicPage(
      'Sign in',
      html`${opts.error ? html`<div class="flash bad" role="alert">${opts.error}</div>` : ''}
        <form method="post" action="/console/sign-in">
          ${hiddenCsrf(await anonymousCsrf(ctx, 'sign-in'))}
          <input type="hidden" name="next" value="${opts.next ?? '/console'}" />
          ${field({ name: 'email', label: 'Email', type: 'email', value: opts.email, required: true, autocomplete: 'username' })}
          ${field({ name: 'password', label: 'Password', type: 'password', required: true, autocomplete: 'current-password' })}
          <div class="actions">
            <button type="submit">Sign in</button>
            <a href="/console/forgot">Forgot your password?</a>
          </div>
        </form>`,
    );

  app.get('/console/sign-in', page, async (request, reply) => {
    const next = safeNext((request.query as Record<string, unknown>).next);
    return send(reply, await signInForm({ next }));
  });

  app.post('/console/sign-in', form, async (request, reply) => {
    const body = await checkAnonymousForm(ctx, request, 'sign-in');
    const next = safeNext(body.next);
    try {
      const user = await checkPassword(ctx, body.email ?? '', body.password ?? '', request.ip);
      const old = await sessionFor(ctx, readCookie(request, SESSION_COOKIE));
      if (old) await endSession(ctx.db, old.id);
      // a new session id at every sign-in (no fixation)
      setSessionCookie(ctx, reply, await startSession(ctx, user.id, user.totp_enabled));
      return see(reply, user.totp_enabled ? `/console/sign-in/code?next=${encodeURIComponent(next)}` : next);
    } catch (err) {
      if (err instanceof AppError && (err.kind === 'unauthorized' || err.kind === 'rate_limited')) {
        return send(
          reply,
          await signInForm({ email: body.email, next, error: err.message }),
          err.kind === 'rate_limited' ? 429 : 401,
        );
      }
      throw err;
    }
  });

  const codeForm = async (sessionId: string, next: string, error?: string) =>
    publicPage(
      'Enter your code',
      html`${error ? html`<div class="flash bad" role="alert">${error}</div>` : ''}
        <p>Open your authenticator app and enter the 6-digit code for admit.</p>
        <form method="post" action="/console/sign-in/code">
          ${hiddenCsrf(await anonymousCsrf(ctx, `code:${sessionId}`))}
          <input type="hidden" name="next" value="${next}" />
          ${field({ name: 'code', label: 'Code', required: true, autocomplete: 'one-time-code', attrs: 'inputmode="numeric" pattern="[0-9 ]{6,7}"' })}
          <button type="submit">Continue</button>
        </form>`,
    );

  const pendingSession = async (request: FastifyRequest) => {
    const s = await sessionFor(ctx, readCookie(request, SESSION_COOKIE));
    if (!s) throw new AppError('unauthorized', 'sign_in', 'Please sign in', { extra: { location: '/console/sign-in' } });
    return s;
  };

  app.get('/console/sign-in/code', page, async (request, reply) => {
    const s = await pendingSession(request);
    const next = safeNext((request.query as Record<string, unknown>).next);
    if (!s.pendingTotp) return see(reply, next);
    return send(reply, await codeForm(s.id, next));
  });

  app.post('/console/sign-in/code', form, async (request, reply) => {
    const s = await pendingSession(request);
    const body = await checkAnonymousForm(ctx, request, `code:${s.id}`);
    const next = safeNext(body.next);
    try {
      await completeTotp(ctx, s, body.code ?? '', request.ip);
      return see(reply, next);
    } catch (err) {
      if (err instanceof AppError && (err.kind === 'unauthorized' || err.kind === 'rate_limited')) {
        return send(reply, await codeForm(s.id, next, err.message), err.kind === 'rate_limited' ? 429 : 401);
      }
      throw err;
    }
  });

  app.post('/console/sign-out', form, async (request, reply) => {
    const viewer = await viewerOf(ctx, request);
    await checkForm(ctx, request, viewer);
    await endSession(ctx.db, viewer.session.id);
    setSessionCookie(ctx, reply, null);
    return see(reply, '/console/sign-in?signed_out=1');
  });

  app.get('/console/forgot', page, async (_request, reply) =>
    send(
      reply,
      publicPage(
        'Reset your password',
        html`<p>Enter the email you sign in with. We will mail you a link to choose a new password.</p>
          <form method="post" action="/console/forgot">
            ${hiddenCsrf(await anonymousCsrf(ctx, 'forgot'))}
            ${field({ name: 'email', label: 'Email', type: 'email', required: true, autocomplete: 'username' })}
            <div class="actions"><button type="submit">Send the link</button> <a href="/console/sign-in">Back to sign-in</a></div>
          </form>`,
      ),
    ),
  );

  app.post('/console/forgot', form, async (request, reply) => {
    const body = await checkAnonymousForm(ctx, request, 'forgot');
    try {
      await requestPasswordReset(ctx, body.email ?? '', request.ip);
    } catch (err) {
      if (!(err instanceof AppError && err.kind === 'rate_limited')) throw err;
    }
    // the same answer whether or not the email is known
    return send(
      reply,
      publicPage(
        'Check your mail',
        html`<p>If an account uses that email, a link to reset its password is on its way. It works for one hour.</p>
          <p><a href="/console/sign-in">Back to sign-in</a></p>`,
      ),
    );
  });

  const resetForm = async (token: string, errors: FieldErrors = {}) =>
    publicPage(
      'Choose a new password',
      html`<form method="post" action="/console/reset/${token}">
        ${hiddenCsrf(await anonymousCsrf(ctx, `reset:${tokenScope(token)}`))}
        ${field({ name: 'password', label: 'New password', type: 'password', required: true, autocomplete: 'new-password', errors, hint: 'At least 10 characters.' })}
        <button type="submit">Set the password</button>
      </form>`,
    );

  app.get<{ Params: { token: string } }>('/console/reset/:token', page, async (request, reply) => {
    if (!(await resetTokenValid(ctx, request.params.token))) {
      return send(
        reply,
        publicPage(
          'Link expired',
          html`<p>This link has expired or was used. <a href="/console/forgot">Ask for a new one</a>.</p>`,
        ),
        404,
      );
    }
    return send(reply, await resetForm(request.params.token));
  });

  app.post<{ Params: { token: string } }>('/console/reset/:token', form, async (request, reply) => {
    const body = await checkAnonymousForm(ctx, request, `reset:${tokenScope(request.params.token)}`);
    try {
      await resetPassword(ctx, request.params.token, body.password ?? '');
    } catch (err) {
      if (err instanceof AppError && err.fields) return send(reply, await resetForm(request.params.token, err.fields), 422);
      throw err;
    }
    return see(reply, '/console/sign-in?reset=1');
  });

  const inviteForm = async (
    token: string,
    inv: { account_name: string; email: string; role: string },
    known: boolean,
    errors: FieldErrors = {},
    error?: string,
  ) =>
    publicPage(
      `Join ${inv.account_name}`,
      html`${error ? html`<div class="flash bad" role="alert">${error}</div>` : ''}
        <p>You were invited as <strong>${inv.role}</strong> with ${inv.email}.</p>
        <form method="post" action="/console/invite/${token}">
          ${hiddenCsrf(await anonymousCsrf(ctx, `invite:${tokenScope(token)}`))}
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

  app.get<{ Params: { token: string } }>('/console/invite/:token', page, async (request, reply) => {
    const inv = await findInvitation(ctx, request.params.token);
    if (!inv)
      return send(reply, publicPage('Invitation expired', html`<p>This invitation has expired or was already used.</p>`), 404);
    const known = Boolean((await findUserByEmail(ctx.db, inv.email))?.password_hash);
    return send(reply, await inviteForm(request.params.token, inv, known));
  });

  app.post<{ Params: { token: string } }>('/console/invite/:token', form, async (request, reply) => {
    const body = await checkAnonymousForm(ctx, request, `invite:${tokenScope(request.params.token)}`);
    const inv = await findInvitation(ctx, request.params.token);
    if (!inv)
      return send(reply, publicPage('Invitation expired', html`<p>This invitation has expired or was already used.</p>`), 404);
    const known = Boolean((await findUserByEmail(ctx.db, inv.email))?.password_hash);
    try {
      const userId = await acceptInvitation(
        ctx,
        request.params.token,
        { name: body.name ?? '', password: body.password ?? '' },
        request.ip,
      );
      const user = await ctx.db.selectFrom('users').select('totp_enabled').where('id', '=', userId).executeTakeFirstOrThrow();
      setSessionCookie(ctx, reply, await startSession(ctx, userId, user.totp_enabled));
      return see(
        reply,
        user.totp_enabled ? `/console/sign-in/code?next=/console/a/${inv.slug}` : `/console/a/${inv.slug}/events`,
      );
    } catch (err) {
      if (err instanceof AppError && (err.fields || err.kind === 'unauthorized')) {
        return send(
          reply,
          await inviteForm(request.params.token, inv, known, err.fields ?? {}, err.fields ? undefined : err.message),
          422,
        );
      }
      throw err;
    }
  });

  app.get('/console', page, async (request, reply) => {
    const viewer = await viewerOf(ctx, request);
    const first = viewer.accounts[0];
    if (viewer.accounts.length === 1 && first)
      return see(reply, `/console/a/${first.slug}/${first.role === 'door' ? 'door' : 'events'}`);
    return see(reply, '/console/accounts');
  });

  app.get('/console/accounts', page, async (request, reply) => {
    const viewer = await viewerOf(ctx, request);
    return send(
      reply,
      consolePage({
        title: 'Your accounts',
        viewer,
        active: 'accounts',
        body: viewer.accounts.length
          ? html`<div class="table-wrap"><table>
              <thead><tr><th scope="col">Account</th><th scope="col">Your role</th></tr></thead>
              <tbody>${viewer.accounts.map((a) => html`<tr><td><a href="/console/a/${a.slug}/events">${a.name}</a></td><td>${a.role}</td></tr>`)}</tbody>
            </table></div>`
          : html`<p>You are not a member of any account yet. Ask an owner to invite you.</p>`,
      }),
    );
  });

  app.get<{ Params: { account: string } }>('/console/a/:account', page, async (request, reply) => {
    const viewer = await viewerOf(ctx, request, request.params.account);
    return see(reply, `/console/a/${viewer.account!.slug}/events`);
  });

  // ---- The person's own sign-in: password and the TOTP second factor

  const mePage = async (
    request: FastifyRequest,
    reply: FastifyReply,
    opts: { errors?: FieldErrors; error?: string; status?: number } = {},
  ) => {
    const viewer = await viewerOf(ctx, request);
    const uri = viewer.session.totpEnabled ? null : await totpUri(ctx.db, viewer.session.userId);
    const qr = uri ? await QRCode.toDataURL(uri, { margin: 1, width: 200 }) : null;
    const secret = uri ? new URL(uri).searchParams.get('secret') : null;
    return send(
      reply,
      consolePage({
        title: 'Your sign-in',
        viewer,
        active: 'me',
        flash: opts.error ? { kind: 'bad', text: opts.error } : flashOf(request.query),
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
      }),
      opts.status ?? 200,
    );
  };

  app.get('/console/me', page, async (request, reply) => mePage(request, reply));
  app.get<{ Params: { account: string } }>('/console/a/:account/me', page, async (_request, reply) => see(reply, '/console/me'));

  app.post('/console/me/2fa/start', form, async (request, reply) => {
    const viewer = await viewerOf(ctx, request);
    await checkForm(ctx, request, viewer);
    if (!viewer.session.totpEnabled) await beginTotp(ctx.db, viewer.session.userId, viewer.session.email);
    return see(reply, '/console/me');
  });

  app.post('/console/me/2fa/confirm', form, async (request, reply) => {
    const viewer = await viewerOf(ctx, request);
    const body = await checkForm(ctx, request, viewer);
    if (!(await confirmTotp(ctx, viewer.session.userId, body.code ?? ''))) {
      return mePage(request, reply, { errors: { code: ['That code is not right; codes change every 30 seconds'] }, status: 422 });
    }
    return see(reply, '/console/me?done=2fa-on');
  });

  app.post('/console/me/password', form, async (request, reply) => {
    const viewer = await viewerOf(ctx, request);
    const body = await checkForm(ctx, request, viewer);
    try {
      await changePassword(ctx, viewer.session, { current: body.current ?? '', next: body.password ?? '' }, request.ip);
    } catch (err) {
      if (err instanceof AppError && err.fields) return mePage(request, reply, { errors: err.fields, status: 422 });
      throw err;
    }
    return see(reply, '/console/me?done=password-changed');
  });

  app.post('/console/me/2fa/off', form, async (request, reply) => {
    const viewer = await viewerOf(ctx, request);
    const body = await checkForm(ctx, request, viewer);
    if (!(await isOwnPassword(ctx, viewer.session.userId, body.password ?? '', request.ip))) {
      return mePage(request, reply, { errors: { password: ['That is not your password'] }, status: 422 });
    }
    await disableTotp(ctx.db, viewer.session.userId);
    return see(reply, '/console/me?done=2fa-off');
  });
}
