import type { OutboxHandler } from './platform/jobs/outbox-dispatcher.ts';
import { renderLatePaymentMail, renderPayLinkMail } from './modules/orders/orders.mail.ts';
import { renderTicketMailWithInvoice } from './modules/invoices/invoices.mail.ts';
import { renderRefundMail } from './modules/refunds/refunds.mail.ts';
import { renderTransferMail } from './modules/orders/transfer.mail.ts';
import { autoRefund } from './modules/refunds/auto-refund.service.ts';
import { renderInvitationMail, renderPasswordResetMail } from './modules/users/users.mail.ts';
import { renderWebhookDisabledMail } from './modules/webhooks/webhooks.mail.ts';
import { renderWaitlistJoinedMail, renderWaitlistOfferMail } from './modules/waitlist/waitlist.mail.ts';
import { messageMailOnce, renderMessageMail } from './modules/messages/messages.mail.ts';

/** Every kind of outbox message and what dispatching it means. */
export const outboxHandlers: Record<string, OutboxHandler> = {
  'mail.tickets': { type: 'mail', render: renderTicketMailWithInvoice },
  'mail.refund': { type: 'mail', render: renderRefundMail },
  'mail.ticket_transferred': { type: 'mail', render: renderTransferMail },
  'mail.late_payment': { type: 'mail', render: renderLatePaymentMail },
  'mail.pay_link': { type: 'mail', render: renderPayLinkMail },
  'mail.invitation': { type: 'mail', render: renderInvitationMail },
  'mail.password_reset': { type: 'mail', render: renderPasswordResetMail },
  'mail.webhook_disabled': { type: 'mail', render: renderWebhookDisabledMail },
  'mail.waiting_list_joined': { type: 'mail', render: renderWaitlistJoinedMail },
  'mail.waiting_list_offer': { type: 'mail', render: renderWaitlistOfferMail },
  'mail.message': { type: 'mail', render: renderMessageMail, once: messageMailOnce },
  'payment.auto_refund': { type: 'action', run: autoRefund },
};
