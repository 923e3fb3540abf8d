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

/**
 * The description as plain text, for places that show no HTML (a calendar file's DESCRIPTION):
 * the Markdown's words without its marks, paragraphs apart, list items on lines of their own, a
 * link's address after its text when the two differ.
 */
export function descriptionText(source: string | null | undefined): string | null {
  if (!source || !source.trim()) return null;
  const out: string[] = [];
  const lists: Array<{ ordered: boolean; n: number }> = [];
  for (const t of md.parse(source, {})) {
    switch (t.type) {
      case 'bullet_list_open':
      case 'ordered_list_open':
        lists.push({ ordered: t.type === 'ordered_list_open', n: Number(t.attrGet('start') ?? 1) });
        break;
      case 'bullet_list_close':
      case 'ordered_list_close':
        lists.pop();
        if (!lists.length) out.push('\n');
        break;
      case 'list_item_open': {
        const l = lists.at(-1);
        out.push('  '.repeat(Math.max(0, lists.length - 1)), l?.ordered ? `${l.n++}. ` : '- ');
        break;
      }
      case 'paragraph_close':
        out.push(lists.length ? '\n' : '\n\n');
        break;
      case 'heading_close':
        out.push('\n\n');
        break;
      case 'fence':
      case 'code_block':
        out.push(t.content, '\n');
        break;
      case 'hr':
        out.push('\n');
        break;
      case 'inline': {
        let href: string | null = null;
        let text = '';
        for (const c of t.children ?? []) {
          if (c.type === 'link_open') {
            href = c.attrGet('href') as string | null;
            text = '';
          } else if (c.type === 'link_close') {
            if (href && href !== text && `mailto:${text}` !== href && !href.endsWith(`//${text}`)) out.push(` (${href})`);
            href = null;
          } else if (c.type === 'softbreak') out.push(' ');
          else if (c.type === 'hardbreak') out.push('\n');
          else if (c.type === 'text' || c.type === 'code_inline') {
            out.push(c.content);
            text += c.content;
          }
        }
        break;
      }
    }
  }
  return out
    .join('')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}
