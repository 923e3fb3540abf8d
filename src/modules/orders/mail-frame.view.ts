import { escapeHtml } from '../../platform/http/html.ts';
import type { MailTheme } from '../themes/page-theme.service.ts';

/**
 * The HTML of a buyer mail, in the one layout every buyer mail shares: a white card of at most
 * 600 px on a quiet background, the account's name or logo on top, a title, paragraphs, a button,
 * blocks (tickets). Mail programs ignore style sheets and many ignore `max-width` on a div, so it
 * is built as nested presentation tables with every style inline, in a system font stack. The
 * theme's email layout (when it names one) goes around the content inside the card, so the mail
 * keeps its frame whatever the layout is.
 */
export const MAIL_FONT = "-apple-system,BlinkMacSystemFont,'Segoe UI',Roboto,Helvetica,Arial,sans-serif";
const TEXT = '#1b1b1f';
const QUIET = '#5f5f66';

export function mailFrame(opts: {
  theme: MailTheme;
  lang: string;
  title: string;
  paragraphs: string[];
  link?: { href: string; text: string };
  extra?: string;
}): string {
  const { theme } = opts;
  const button = opts.link
    ? `<table role="presentation" cellpadding="0" cellspacing="0" border="0" style="margin:8px 0 20px"><tr>` +
      `<td style="background:${theme.accent};border-radius:8px">` +
      `<a href="${escapeHtml(opts.link.href)}" style="display:inline-block;padding:12px 22px;font-family:${MAIL_FONT};font-size:16px;font-weight:700;line-height:20px;color:${theme.onAccent};text-decoration:none;border-radius:8px">${escapeHtml(opts.link.text)}</a>` +
      `</td></tr></table>` +
      `<p style="margin:0 0 16px;font-size:13px;line-height:19px;color:${QUIET}">` +
      `<a href="${escapeHtml(opts.link.href)}" style="color:${theme.link};word-break:break-all">${escapeHtml(opts.link.href)}</a></p>`
    : '';
  const content =
    `<h1 style="margin:0 0 16px;font-family:${MAIL_FONT};font-size:24px;line-height:30px;font-weight:700;color:${TEXT}">${escapeHtml(opts.title)}</h1>` +
    opts.paragraphs.map((p) => `<p style="margin:0 0 14px">${escapeHtml(p)}</p>`).join('') +
    button +
    (opts.extra ?? '');
  const body = theme.layout ? theme.layout(content, opts.title) : content;
  const brand = theme.logoUrl
    ? `<img src="${escapeHtml(theme.logoUrl)}" alt="${escapeHtml(theme.accountName)}" height="40" style="display:block;height:40px;width:auto;border:0">`
    : `<strong style="font-size:15px;color:${TEXT}">${escapeHtml(theme.accountName)}</strong>`;
  return (
    `<!doctype html><html lang="${escapeHtml(opts.lang)}"><head><meta charset="utf-8">` +
    `<meta name="viewport" content="width=device-width, initial-scale=1"><meta name="color-scheme" content="light">` +
    `<title>${escapeHtml(opts.title)}</title></head>` +
    `<body style="margin:0;padding:0;background:#f3f3f0">` +
    `<table role="presentation" width="100%" cellpadding="0" cellspacing="0" border="0" style="background:#f3f3f0"><tr>` +
    `<td align="center" style="padding:24px 12px">` +
    `<table role="presentation" width="600" cellpadding="0" cellspacing="0" border="0" style="width:100%;max-width:600px;background:#ffffff;border:1px solid #e1e1dc;border-radius:12px">` +
    `<tr><td style="padding:20px 28px 4px;font-family:${MAIL_FONT}">${brand}</td></tr>` +
    `<tr><td style="padding:12px 28px 24px;font-family:${MAIL_FONT};font-size:16px;line-height:24px;color:${TEXT}">${body}</td></tr>` +
    `</table>` +
    `<p style="margin:16px 0 0;font-family:${MAIL_FONT};font-size:12px;line-height:18px;color:${QUIET}">${escapeHtml(theme.accountName)}</p>` +
    `</td></tr></table></body></html>`
  );
}
