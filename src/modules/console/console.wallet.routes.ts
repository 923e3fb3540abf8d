import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../platform/errors.ts';
import { fromServiceAccountJson } from '../wallet/wallet-keys.ts';
import { removeWalletKeys, saveAppleKeys, saveGoogleKeys, walletStatus } from '../wallet/wallet-keys.service.ts';
import { checkForm, CONSOLE_FORM, CONSOLE_PAGE, requireRole, see, send, viewerOf, type Viewer } from './console.http.ts';
import { t } from './console-lang.ts';
import type { FieldErrors } from './console-layout.view.ts';
import { walletBase, walletPage } from './console-wallet.view.ts';

/** The account's wallet pass keys (owners): upload, replace, remove (contract section 15). */
type P = { Params: { account: string } };

/** Which non-secret fields a refused form may show again. */
const ECHO = ['pass_type_id', 'team_id', 'issuer_id', 'service_account_email'];

export async function consoleWalletRoutes(app: FastifyInstance): Promise<void> {
  const ctx = app.ctx;

  const owner = async (request: FastifyRequest<P>) => {
    const viewer = await viewerOf(ctx, request, request.params.account);
    requireRole(viewer, 'wallet.manage');
    return viewer;
  };

  app.get<P>('/console/a/:account/wallet', CONSOLE_PAGE, async (request, reply) => {
    const viewer = await owner(request);
    const done = (request.query as Record<string, string>).done;
    const m = t();
    const text = done === 'saved' ? m.walletSaved : done === 'removed' ? m.walletRemoved : null;
    const status = await walletStatus(ctx, viewer.account!.id);
    return send(reply, walletPage({ viewer, status, flash: text ? { kind: 'ok', text } : null }));
  });

  /** Saves, or shows the page again with the problems by field (422). */
  const upload = async (reply: FastifyReply, viewer: Viewer, form: Record<string, string>, save: () => Promise<void>) => {
    try {
      await save();
    } catch (err) {
      if (!(err instanceof AppError) || err.code !== 'invalid_wallet_keys') throw err;
      const words = t().walletProblems;
      const errors: FieldErrors = Object.fromEntries(
        Object.entries(err.fields ?? {}).map(([f, problems]) => [f, problems.map((p) => words[p] ?? p)]),
      );
      const echo = Object.fromEntries(ECHO.filter((k) => form[k] !== undefined).map((k) => [k, form[k]!]));
      const status = await walletStatus(ctx, viewer.account!.id);
      return send(
        reply,
        walletPage({ viewer, status, form: echo, errors, flash: { kind: 'bad', text: t().walletRefused } }),
        422,
      );
    }
    return see(reply, `${walletBase(viewer)}?done=saved`);
  };

  app.post<P>('/console/a/:account/wallet/apple', CONSOLE_FORM, async (request, reply) => {
    const viewer = await owner(request);
    const form = await checkForm(ctx, request, viewer);
    return upload(reply, viewer, form, () =>
      saveAppleKeys(ctx, viewer.account!.id, {
        pass_type_id: form.pass_type_id ?? '',
        team_id: form.team_id ?? '',
        certificate_pem: form.certificate_pem ?? '',
        key_pem: form.key_pem ?? '',
        wwdr_pem: form.wwdr_pem ?? '',
      }),
    );
  });

  app.post<P>('/console/a/:account/wallet/google', CONSOLE_FORM, async (request, reply) => {
    const viewer = await owner(request);
    const form = await checkForm(ctx, request, viewer);
    const pasted = fromServiceAccountJson(form.private_key_pem ?? '');
    return upload(reply, viewer, form, () =>
      saveGoogleKeys(ctx, viewer.account!.id, {
        issuer_id: form.issuer_id ?? '',
        service_account_email: form.service_account_email?.trim() || pasted.email || '',
        private_key_pem: pasted.pem,
      }),
    );
  });

  for (const platform of ['apple', 'google'] as const) {
    app.post<P>(`/console/a/:account/wallet/${platform}/remove`, CONSOLE_FORM, async (request, reply) => {
      const viewer = await owner(request);
      await checkForm(ctx, request, viewer);
      await removeWalletKeys(ctx, viewer.account!.id, platform);
      return see(reply, `${walletBase(viewer)}?done=removed`);
    });
  }
}
