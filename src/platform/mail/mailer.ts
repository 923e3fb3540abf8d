import nodemailer, { type Transporter } from 'nodemailer';
import type { Config } from '../config.ts';

export interface MailAttachment {
  filename: string;
  content: Buffer | string;
  contentType: string;
  /** set: an inline part the HTML shows as `cid:<cid>` (a QR code) */
  cid?: string;
}

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  html: string;
  /** the sender's display name (the address is MAIL_FROM): which event or account writes */
  fromName?: string;
  attachments?: MailAttachment[];
}

export interface Mailer {
  /** false when mail is kept in the outbox for the dev viewer instead of sent */
  readonly delivers: boolean;
  send(msg: MailMessage & { messageId: string }): Promise<void>;
}

const transports = new Map<string, Transporter>();

/** nodemailer over SMTP_URL; without it, mail stays in the outbox (viewable at /_mail outside production). */
export function mailerFor(config: Config): Mailer {
  if (!config.smtpUrl) {
    return {
      delivers: false,
      async send() {
        /* kept in the outbox */
      },
    };
  }
  const cacheKey = `${config.smtpUrl}|${config.smtpTimeoutMs}`;
  let t = transports.get(cacheKey);
  if (!t) {
    const u = new URL(config.smtpUrl);
    t = nodemailer.createTransport({
      host: u.hostname,
      port: Number(u.port || (u.protocol === 'smtps:' ? 465 : 25)),
      secure: u.protocol === 'smtps:',
      ...(u.username ? { auth: { user: decodeURIComponent(u.username), pass: decodeURIComponent(u.password) } } : {}),
      // A server that hangs must not hold the dispatcher: fail and retry later.
      connectionTimeout: config.smtpTimeoutMs,
      greetingTimeout: config.smtpTimeoutMs,
      socketTimeout: config.smtpTimeoutMs * 2,
    });
    transports.set(cacheKey, t);
  }
  const transport = t;
  return {
    delivers: true,
    async send(msg) {
      await transport.sendMail({
        from: msg.fromName ? { name: msg.fromName, address: config.mailFrom } : config.mailFrom,
        to: msg.to,
        subject: msg.subject,
        text: msg.text,
        html: msg.html,
        messageId: msg.messageId,
        ...(msg.attachments?.length
          ? {
              attachments: msg.attachments.map((a) => ({
                filename: a.filename,
                content: a.content,
                contentType: a.contentType,
                ...(a.cid ? { cid: a.cid, contentDisposition: 'inline' as const } : {}),
              })),
            }
          : {}),
      });
    },
  };
}
