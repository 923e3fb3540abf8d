import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import QRCode from 'qrcode';
import { AppError } from '../../platform/errors.ts';
import {
  beginTotp,
  completeTotp,
  confirmTotp,
  disableTotp,
  endSession,
  findUserByEmail,
  sessionFor,
  startSession,
  totpEnabled,
  setUserLanguage,
  totpUri,
} from '../users/users.service.ts';
import { LANGS } from '../i18n/i18n.ts';
import { t, useChosenLanguage } from './console-lang.ts';
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
import { flashOf, type FieldErrors } from './console-layout.view.ts';
import {
  accountsPage,
  codePage,
  forgotPage,
  forgotSentPage,
  inviteExpiredPage,
  invitePage,
  mePage as mePageView,
  resetExpiredPage,
  resetPage,
  signInPage,
} from './console.auth.view.ts';

const page = CONSOLE_PAGE;
const form = CONSOLE_FORM;

/** Sign-in, second factor, sign-out, password reset, invitations and the person's own settings. */
export async function consoleAuthRoutes(app: FastifyInstance): Promise<void> {
  const ctx = app.ctx;

  const signInForm = async (opts: { email?: string; next?: string; error?: string }) =>
    signInPage({ ...opts, csrf: await anonymousCsrf(ctx, 'sign-in') });

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
    codePage(await anonymousCsrf(ctx, `code:${sessionId}`), next, error);

  const pendingSession = async (request: FastifyRequest) => {
    const s = await sessionFor(ctx, readCookie(request, SESSION_COOKIE));
    if (!s) throw new AppError('unauthorized', 'sign_in', 'Please sign in', { extra: { location: '/console/sign-in' } });
    // the person is known once the password is right: the second step speaks their language
    useChosenLanguage(s.language);
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

  app.get('/console/forgot', page, async (_request, reply) => send(reply, forgotPage(await anonymousCsrf(ctx, 'forgot'))));

  app.post('/console/forgot', form, async (request, reply) => {
    const body = await checkAnonymousForm(ctx, request, 'forgot');
    try {
      await requestPasswordReset(ctx, body.email ?? '', request.ip);
    } catch (err) {
      if (!(err instanceof AppError && err.kind === 'rate_limited')) throw err;
    }
    // the same answer whether or not the email is known
    return send(reply, forgotSentPage());
  });

  const resetForm = async (token: string, errors: FieldErrors = {}) =>
    resetPage(token, await anonymousCsrf(ctx, `reset:${tokenScope(token)}`), errors);

  app.get<{ Params: { token: string } }>('/console/reset/:token', page, async (request, reply) => {
    if (!(await resetTokenValid(ctx, request.params.token))) {
      return send(reply, resetExpiredPage(), 404);
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
  ) => invitePage(token, await anonymousCsrf(ctx, `invite:${tokenScope(token)}`), inv, known, errors, error);

  app.get<{ Params: { token: string } }>('/console/invite/:token', page, async (request, reply) => {
    const inv = await findInvitation(ctx, request.params.token);
    if (!inv) return send(reply, inviteExpiredPage(), 404);
    const known = Boolean((await findUserByEmail(ctx.db, inv.email))?.password_hash);
    return send(reply, await inviteForm(request.params.token, inv, known));
  });

  app.post<{ Params: { token: string } }>('/console/invite/:token', form, async (request, reply) => {
    const body = await checkAnonymousForm(ctx, request, `invite:${tokenScope(request.params.token)}`);
    const inv = await findInvitation(ctx, request.params.token);
    if (!inv) return send(reply, inviteExpiredPage(), 404);
    const known = Boolean((await findUserByEmail(ctx.db, inv.email))?.password_hash);
    try {
      const userId = await acceptInvitation(
        ctx,
        request.params.token,
        { name: body.name ?? '', password: body.password ?? '' },
        request.ip,
      );
      const withCode = await totpEnabled(ctx.db, userId);
      setSessionCookie(ctx, reply, await startSession(ctx, userId, withCode));
      return see(reply, withCode ? `/console/sign-in/code?next=/console/a/${inv.slug}` : `/console/a/${inv.slug}/events`);
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
    return send(reply, accountsPage(viewer));
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
    const totp = uri ? { uri, qr: await QRCode.toDataURL(uri, { margin: 1, width: 200 }) } : null;
    const flash = opts.error ? { kind: 'bad' as const, text: opts.error } : flashOf(request.query);
    return send(reply, mePageView(viewer, totp, { flash, errors: opts.errors }), opts.status ?? 200);
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
      return mePage(request, reply, { errors: { code: [t().codeWrongField] }, status: 422 });
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
      return mePage(request, reply, { errors: { password: [t().notYourPassword] }, status: 422 });
    }
    await disableTotp(ctx.db, viewer.session.userId);
    return see(reply, '/console/me?done=2fa-off');
  });

  app.post('/console/me/language', form, async (request, reply) => {
    const viewer = await viewerOf(ctx, request);
    const body = await checkForm(ctx, request, viewer);
    const language = body.language || null;
    try {
      await setUserLanguage(ctx.db, viewer.session.userId, language, LANGS);
    } catch (err) {
      if (err instanceof AppError && err.fields) return mePage(request, reply, { errors: err.fields, status: 422 });
      throw err;
    }
    return see(reply, '/console/me?done=language');
  });
}
