import { html, raw, type SafeHtml } from '../../platform/http/html.ts';
import type { MailMessage } from '../../platform/mail/mailer.ts';
import type { EventRow } from '../events/events.repo.ts';
import type { TicketTypeView } from '../events/events.service.ts';
import type { MessageOut } from '../messages/messages.service.ts';
import { can, type Viewer } from './console.http.ts';
import {
  checkbox,
  consolePage,
  emptyState,
  field,
  hiddenCsrf,
  nextStep,
  select,
  type FieldErrors,
  type Flash,
} from './console-layout.view.ts';
import { t } from './console-lang.ts';
import { eventBase } from './console.order-desk.view.ts';
import { count, when } from './formats.ts';
import { eventTabs } from './event-tabs.view.ts';
import type { MessageDraft } from './messages-form.ts';

export interface MessagePreview {
  recipients: number;
  order: { ref: string; email: string | null } | null | undefined;
  mail: MailMessage | null;
}

const plainList = (xs: string[]) => xs.join(' ');

function stateWord(state: MessageOut['state']): string {
  const m = t();
  return { scheduled: m.msgStateScheduled, sending: m.msgStateSending, sent: m.msgStateSent }[state];
}

function statusWord(status: string): string {
  const m = t();
  const words: Record<string, string> = {
    paid: m.msgStatusPaid,
    pending: m.msgStatusPending,
    refunded: m.msgStatusRefunded,
    canceled: m.msgStatusCanceled,
    any: m.msgStatusAny,
  };
  return words[status] ?? status;
}

/** Whom a message was for, in words: its ticket types, order statuses and check-in. */
function audience(msg: MessageOut, types: TicketTypeView[]): string {
  const m = t();
  const names = (msg.to.ticket_types ?? []).map((k) => types.find((ty) => ty.slug === k)?.name ?? k);
  return [
    names.length ? names.join(', ') : m.msgAllTypes,
    msg.to.status.map(statusWord).join(', '),
    msg.to.checked_in === undefined ? '' : msg.to.checked_in ? m.msgCheckedYes : m.msgCheckedNo,
  ]
    .filter(Boolean)
    .join(' · ');
}

function list(messages: MessageOut[], types: TicketTypeView[], tz: string, write: boolean): SafeHtml {
  const m = t();
  if (!messages.length)
    return emptyState({
      name: 'messages',
      text: m.emptyMessages,
      next: write ? nextStep('#f-subject', m.emptyWriteFirst, 'secondary') : undefined,
    });
  return html`<div class="table-wrap" tabindex="0" role="region" aria-label="${m.msgListLabel}">
    <table>
      <caption class="skip">${m.msgListCaption}</caption>
      <thead>
        <tr>
          <th scope="col">${m.msgColSubject}</th>
          <th scope="col">${m.msgColTo}</th>
          <th scope="col">${m.msgColWhen}</th>
          <th scope="col">${m.msgColState}</th>
          <th scope="col" class="num">${m.msgColRecipients}</th>
          <th scope="col" class="num">${m.msgColSent}</th>
          <th scope="col" class="num">${m.msgColFailed}</th>
        </tr>
      </thead>
      <tbody>
        ${messages.map(
          (msg) => html`<tr>
            <td>${msg.subject}<div class="muted">${m.msgBy(msg.created_by)}</div></td>
            <td>${audience(msg, types)}</td>
            <td>${when(msg.send_at, tz)}</td>
            <td><span class="pill status-${msg.state === 'sent' ? 'paid' : 'pending'}">${stateWord(msg.state)}</span></td>
            <td class="num">${count(msg.recipients)}</td>
            <td class="num">${count(msg.sent)}</td>
            <td class="num">${count(msg.failed)}</td>
          </tr>`,
        )}
      </tbody>
    </table>
  </div>`;
}

function previewBlock(p: MessagePreview): SafeHtml {
  const m = t();
  if (!p.mail || !p.order) {
    return html`<section class="card" aria-labelledby="preview-h">
      <h2 id="preview-h">${m.msgPreviewHeading}</h2>
      <p>${m.msgPreviewNobody}</p>
    </section>`;
  }
  // the mail's own document in a sandboxed frame: its styles stay its own, nothing in it runs
  return html`<section class="card" aria-labelledby="preview-h">
    <h2 id="preview-h">${m.msgPreviewHeading}</h2>
    <p id="preview-who">${m.msgPreviewWho(p.recipients, p.order.ref, p.order.email ?? '')}</p>
    <p><strong>${p.mail.subject}</strong></p>
    <iframe sandbox="" title="${m.msgPreviewFrame}" srcdoc="${p.mail.html}" style="width:100%;height:28rem;border:1px solid #e1e1dc;border-radius:8px"></iframe>
    <details>
      <summary>${m.msgTextPart}</summary>
      <pre style="white-space:pre-wrap">${p.mail.text}</pre>
    </details>
  </section>`;
}

function composeForm(viewer: Viewer, event: EventRow, types: TicketTypeView[], d: MessageDraft, e: FieldErrors): SafeHtml {
  const m = t();
  const ticked = new Set(d.ticket_types);
  const radio = (value: 'now' | 'later', label: string) =>
    html`<label class="check" for="when-${value}"
      ><input type="radio" id="when-${value}" name="when" value="${value}" ${d.when === value ? raw('checked') : ''} /> ${label}</label
    >`;
  return html`<form method="post" action="${eventBase(viewer, event.slug)}/messages" class="card" id="compose">
    <h2>${m.msgNewHeading}</h2>
    ${hiddenCsrf(viewer.csrf)}
    ${field({ name: 'subject', label: m.msgSubject, value: d.subject, errors: e, required: true, attrs: 'maxlength="200"' })}
    <div class="field">
      <label for="f-body">${m.msgBody}</label>
      <textarea id="f-body" name="body" rows="10" required aria-describedby="f-body-hint${e.body?.length ? ' f-body-err' : ''}" ${
        e.body?.length ? raw('aria-invalid="true"') : ''
      }>${d.body}</textarea>
      <p class="hint" id="f-body-hint">${m.msgBodyHint}</p>
      ${e.body?.length ? html`<p class="error" id="f-body-err">${plainList(e.body)}</p>` : ''}
    </div>
    <fieldset class="field">
      <legend>${m.msgTicketTypes}</legend>
      ${types.map((ty) =>
        checkbox({ name: 'ticket_types', label: ty.name, value: ty.slug, checked: ticked.has(ty.slug), id: `f-tt-${ty.slug}` }),
      )}
      <p class="hint">${m.msgTicketTypesHint}</p>
      ${e.ticket_types?.length ? html`<p class="error">${plainList(e.ticket_types)}</p>` : ''}
    </fieldset>
    ${select({
      name: 'status',
      label: m.msgStatus,
      value: d.status,
      errors: e,
      options: ['paid', 'pending', 'refunded', 'canceled', 'any'].map((s) => ({ value: s, label: statusWord(s) })),
    })}
    ${select({
      name: 'checked_in',
      label: m.msgCheckedIn,
      value: d.checked_in,
      errors: e,
      options: [
        { value: '', label: m.msgCheckedAny },
        { value: 'yes', label: m.msgCheckedYes },
        { value: 'no', label: m.msgCheckedNo },
      ],
    })}
    <fieldset class="field">
      <legend>${m.msgWhen}</legend>
      ${radio('now', m.msgNow)} ${radio('later', m.msgLater)}
      ${field({ name: 'send_at', label: m.msgSendAt, type: 'datetime-local', value: d.send_at, errors: e, hint: m.msgSendAtHint(event.timezone) })}
    </fieldset>
    <div class="actions">
      <button type="submit" name="intent" value="preview" class="secondary">${m.msgPreviewButton}</button>
      <button type="submit" name="intent" value="send">${m.msgSendButton}</button>
    </div>
  </form>`;
}

/**
 * An event's messages to its buyers: what was written, to whom, when, and how many mails went or
 * failed; for those who may change orders, the form to write one, preview it with a real order
 * and send it now or later.
 */
export function messagesPage(opts: {
  viewer: Viewer;
  event: EventRow;
  types: TicketTypeView[];
  messages: MessageOut[];
  draft: MessageDraft;
  errors?: FieldErrors;
  preview?: MessagePreview | null;
  flash?: Flash | null;
}): string {
  const { viewer, event } = opts;
  const m = t();
  const body: SafeHtml = html`${eventTabs(viewer, event.slug, 'messages')}
    <p>${m.msgLead}</p>
    ${opts.preview ? previewBlock(opts.preview) : ''}
    ${can(viewer, 'orders.write') ? composeForm(viewer, event, opts.types, opts.draft, opts.errors ?? {}) : ''}
    ${list(opts.messages, opts.types, event.timezone, can(viewer, 'orders.write'))}`;
  return consolePage({ title: m.msgTitle(event.name), viewer, active: 'events', flash: opts.flash ?? null, body });
}
