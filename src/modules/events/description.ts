import MarkdownIt from 'markdown-it';
import { raw, type SafeHtml } from '../../platform/http/html.ts';
import { sanitizeHtml } from '../../platform/sanitize.ts';

/**
 * The event's description (Markdown, written by the organiser) as HTML for the buyer pages.
 * markdown-it with raw HTML off escapes any markup in the source and refuses javascript: and
 * data: links; images are off (the pages load images only from this server); headings start at
 * h2 under the page's h1. The result goes through the theme sanitiser as well (http(s), mailto and
 * relative links only), so one bug in either does not reach a buyer.
 */
const md = new MarkdownIt({ html: false, linkify: true, typographer: true, breaks: false }).disable(['image']);

md.renderer.rules.heading_open = (tokens, idx) => {
  const level = Math.min(6, Number(tokens[idx]!.tag.slice(1)) + 1);
  return `<h${level}>`;
};
md.renderer.rules.heading_close = (tokens, idx) => {
  const level = Math.min(6, Number(tokens[idx]!.tag.slice(1)) + 1);
  return `</h${level}>\n`;
};

export function renderDescription(source: string | null | undefined): SafeHtml | null {
  if (!source || !source.trim()) return null;
  return raw(sanitizeHtml(md.render(source)));
}
