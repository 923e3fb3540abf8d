import type { FastifyInstance } from 'fastify';
import { readCodesForm, kindOf } from './catalogue-form.ts';
import { checkForm, requireRole, viewerOf, CONSOLE_FORM, send, see } from './console.http.ts';
import { cataloguePage } from './console-catalogue.view.ts';
import { discountCodeUses, generateCodes, loadEventConfig } from './console-events.service.ts';
import { accountBase } from './console-events.view.ts';
import { flashOf } from './console-layout.view.ts';

/** Generating random discount codes for an event (the form on its discount codes tab). */
export async function consoleCodesRoutes(app: FastifyInstance): Promise<void> {
  const ctx = app.ctx;
  const codes = kindOf('codes')!;

  app.post<{ Params: { account: string; event: string } }>(
    '/console/a/:account/events/:event/codes-generate',
    CONSOLE_FORM,
    async (request, reply) => {
      const viewer = await viewerOf(ctx, request, request.params.account);
      requireRole(viewer, 'events.write');
      const form = await checkForm(ctx, request, viewer);
      const config = await loadEventConfig(ctx, viewer.account!.id, request.params.event);
      const { input, errors } = readCodesForm(form);
      if (Object.keys(errors).length) {
        return send(
          reply,
          cataloguePage({
            viewer,
            config,
            kind: codes,
            open: 'gen',
            errors,
            uses: await discountCodeUses(ctx, viewer.account!.id, config.document.slug),
            flash: flashOf(request.query),
          }),
          422,
        );
      }
      await generateCodes(ctx, viewer.account!.id, config.document.slug, input);
      return see(reply, `${accountBase(viewer)}/events/${config.document.slug}/codes?done=generated`);
    },
  );
}
