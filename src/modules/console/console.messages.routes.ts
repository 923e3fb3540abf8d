import type { FastifyInstance, FastifyReply } from 'fastify';
import { getTicketTypes, loadVisibleEvent } from '../events/events.service.ts';
import { previewMessageMail } from '../messages/messages.mail.ts';
import { createMessage, listMessages } from '../messages/messages.service.ts';
import {
  checkForm,
  formList,
  principalOfViewer,
  requireRole,
  viewerOf,
  send,
  see,
  type Viewer,
  CONSOLE_FORM,
  CONSOLE_PAGE,
} from './console.http.ts';
import type { FieldErrors, Flash } from './console-layout.view.ts';
import { t } from './console-lang.ts';
import { eventBase } from './console.order-desk.view.ts';
import { messagesPage, type MessagePreview } from './console.messages.view.ts';
import { draftInput, emptyDraft, formErrors, readDraft, type MessageDraft } from './messages-form.ts';

type P = { account: string; event: string };

/** An event's messages to its buyers in the console: the list, the form, its preview, sending. */
export async function consoleMessagesRoutes(app: FastifyInstance): Promise<void> {
  const ctx = app.ctx;

  const show = async (
    reply: FastifyReply,
    viewer: Viewer,
    slug: string,
    opts: { draft?: MessageDraft; errors?: FieldErrors; preview?: MessagePreview; flash?: Flash | null; status?: number } = {},
  ) => {
    const p = principalOfViewer(viewer);
    const event = await loadVisibleEvent(ctx, p, slug);
    const [{ messages }, types] = await Promise.all([listMessages(ctx, event, { limit: 200 }), getTicketTypes(ctx, p, slug)]);
    return send(
      reply,
      messagesPage({
        viewer,
        event,
        types,
        messages,
        draft: opts.draft ?? emptyDraft(),
        errors: opts.errors ?? {},
        preview: opts.preview ?? null,
        flash: opts.flash ?? null,
      }),
      opts.status ?? 200,
    );
  };

  app.get<{ Params: P; Querystring: Record<string, string> }>(
    '/console/a/:account/events/:event/messages',
    CONSOLE_PAGE,
    async (request, reply) => {
      const viewer = await viewerOf(ctx, request, request.params.account);
      requireRole(viewer, 'orders.read');
      const m = t();
      const done = { sent: m.msgDoneSent, scheduled: m.msgDoneScheduled }[request.query.done ?? ''];
      return show(reply, viewer, request.params.event, { flash: done ? { kind: 'ok', text: done } : null });
    },
  );

  // one form, two buttons: Preview shows the mail as its first recipient gets it, Send writes it
  app.post<{ Params: P }>('/console/a/:account/events/:event/messages', CONSOLE_FORM, async (request, reply) => {
    const viewer = await viewerOf(ctx, request, request.params.account);
    requireRole(viewer, 'orders.write');
    const form = await checkForm(ctx, request, viewer);
    const event = await loadVisibleEvent(ctx, principalOfViewer(viewer), request.params.event);
    const draft = readDraft(form, formList(request, 'ticket_types'));
    const { input, errors } = draftInput(draft, event.timezone);
    const refused = (fields: FieldErrors) =>
      show(reply, viewer, event.slug, { draft, errors: fields, flash: { kind: 'bad', text: t().msgNotSent }, status: 422 });
    if (Object.keys(errors).length) return refused(errors);
    try {
      if (form.intent === 'preview') {
        const preview = await previewMessageMail(ctx, event, input);
        return show(reply, viewer, event.slug, { draft, preview });
      }
      const { scheduled } = await createMessage(ctx, event, input, viewer.session.email);
      return see(reply, `${eventBase(viewer, event.slug)}/messages?done=${scheduled ? 'scheduled' : 'sent'}`);
    } catch (err) {
      const fields = formErrors(err);
      if (!fields) throw err;
      return refused(fields);
    }
  });
}
