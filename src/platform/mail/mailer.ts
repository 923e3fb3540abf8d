import nodemailer, { type Transporter } from 'nodemailer';
import type { Config } from '../config.ts';

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  html: string;
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
        from: config.mailFrom,
        to: msg.to,
        subject: msg.subject,
        text: msg.text,
        html: msg.html,
        messageId: msg.messageId,
      });
    },
  };
}
