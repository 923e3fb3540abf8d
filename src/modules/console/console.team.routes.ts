import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Role } from '../../platform/db/schema.ts';
import { AppError } from '../../platform/errors.ts';
import { eventChoices } from '../events/event-listings.service.ts';
import { createToken, listTokens, revokeToken } from '../tokens/tokens.service.ts';
import { invite } from '../users/credentials.service.ts';
import { changeMember, ROLES, teamOf } from '../users/users.service.ts';
import { checkForm, formList, requireRole, viewerOf, type Viewer, CONSOLE_FORM, CONSOLE_PAGE } from './console.http.ts';
import { send, see } from './console.http.ts';
import { flashOf, type FieldErrors, type Flash } from './console-layout.view.ts';
import { teamPage as teamPageView, tokensPage as tokensPageView } from './console.team.view.ts';

const page = CONSOLE_PAGE;
const form = CONSOLE_FORM;

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
    const team = await teamOf(ctx.db, viewer.account!.id);
    const { status, ...shown } = opts;
    return send(reply, teamPageView(viewer, team, { ...shown, flash: opts.flash ?? flashOf(request.query) }), status ?? 200);
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
    const events = await eventChoices(ctx, viewer.account!.id);
    const { status, ...shown } = opts;
    return send(
      reply,
      tokensPageView(viewer, tokens, events, { ...shown, flash: opts.flash ?? flashOf(request.query) }),
      status ?? 200,
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
