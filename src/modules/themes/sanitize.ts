/**
 * A small allowlist HTML sanitiser for organiser-written templates that reach buyers' pages.
 * It keeps a fixed set of presentational elements and harmless attributes, drops everything
 * else (script, style, iframes, forms, event handlers, inline styles) and allows only http(s),
 * mailto and relative URLs. Text is passed through with stray angle brackets escaped, so no
 * markup the tokenizer did not understand can survive as markup.
 */
const ALLOWED_TAGS = new Set([
  'a',
  'abbr',
  'address',
  'article',
  'aside',
  'b',
  'blockquote',
  'br',
  'caption',
  'cite',
  'code',
  'dd',
  'del',
  'details',
  'div',
  'dl',
  'dt',
  'em',
  'figcaption',
  'figure',
  'footer',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'header',
  'hr',
  'i',
  'img',
  'ins',
  'kbd',
  'li',
  'main',
  'mark',
  'nav',
  'ol',
  'p',
  'pre',
  'q',
  's',
  'section',
  'small',
  'span',
  'strong',
  'sub',
  'summary',
  'sup',
  'table',
  'tbody',
  'td',
  'tfoot',
  'th',
  'thead',
  'time',
  'tr',
  'u',
  'ul',
]);
const VOID_TAGS = new Set(['br', 'hr', 'img']);
/** Dropped together with everything inside them. */
const DROP_WITH_CONTENT = new Set([
  'script',
  'style',
  'title',
  'iframe',
  'object',
  'embed',
  'template',
  'noscript',
  'svg',
  'math',
  'textarea',
  'select',
  'xmp',
  'noembed',
  'noframes',
  'plaintext',
]);
const GLOBAL_ATTRS = new Set(['class', 'id', 'title', 'lang', 'dir', 'role']);
const TAG_ATTRS: Record<string, Set<string>> = {
  a: new Set(['href', 'rel', 'target']),
  img: new Set(['src', 'alt', 'width', 'height']),
  td: new Set(['colspan', 'rowspan']),
  th: new Set(['colspan', 'rowspan', 'scope']),
  time: new Set(['datetime']),
  ol: new Set(['start']),
};
const URL_ATTRS = new Set(['href', 'src']);

const TAG = /<(\/?)([a-zA-Z][a-zA-Z0-9-]*)((?:\s+[^\s"'>/=]+(?:\s*=\s*(?:"[^"]*"|'[^']*'|[^\s"'=<>`]+))?)*)\s*\/?>/y;
const ATTR = /([^\s"'>/=]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'=<>`]+)))?/g;

function decodeEntities(s: string): string {
  return s
    .replace(/&#x([0-9a-f]+);?/gi, (_, h: string) => safeCodePoint(parseInt(h, 16)))
    .replace(/&#(\d+);?/g, (_, d: string) => safeCodePoint(parseInt(d, 10)))
    .replace(/&colon;/gi, ':')
    .replace(/&tab;/gi, '\t')
    .replace(/&newline;/gi, '\n')
    .replace(/&quot;/gi, '"')
    .replace(/&apos;/gi, "'")
    .replace(/&lt;/gi, '<')
    .replace(/&gt;/gi, '>')
    .replace(/&amp;/gi, '&');
}

function safeCodePoint(n: number): string {
  return Number.isFinite(n) && n > 0 && n <= 0x10ffff ? String.fromCodePoint(n) : '';
}

/** http(s), mailto, and relative URLs only; the check runs on the decoded, whitespace-free form. */
export function isSafeUrl(value: string): boolean {
  const v = decodeEntities(value).replace(/[\u0000-\u0020\u007f-\u009f]+/g, '');
  const scheme = /^([a-zA-Z][a-zA-Z0-9+.-]*):/.exec(v);
  if (!scheme) return true;
  return ['http', 'https', 'mailto'].includes(scheme[1]!.toLowerCase());
}

function escapeAttr(v: string): string {
  return v.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

function cleanAttrs(tag: string, raw: string): string {
  let out = '';
  for (const m of raw.matchAll(ATTR)) {
    const name = m[1]!.toLowerCase();
    const value = decodeEntities(m[2] ?? m[3] ?? m[4] ?? '');
    const allowed = GLOBAL_ATTRS.has(name) || name.startsWith('aria-') || TAG_ATTRS[tag]?.has(name);
    if (!allowed) continue;
    if (URL_ATTRS.has(name) && !isSafeUrl(value)) continue;
    if (name === 'target') {
      out += ' target="_blank" rel="noopener noreferrer"';
      continue;
    }
    if (name === 'rel') continue;
    out += ` ${name}="${escapeAttr(value)}"`;
  }
  return out;
}

export function sanitizeHtml(input: string): string {
  let out = '';
  let i = 0;
  const s = input;
  while (i < s.length) {
    const lt = s.indexOf('<', i);
    if (lt < 0) {
      out += s.slice(i).replace(/>/g, '&gt;');
      break;
    }
    out += s.slice(i, lt).replace(/>/g, '&gt;');
    if (s.startsWith('<!--', lt)) {
      const end = s.indexOf('-->', lt + 4);
      i = end < 0 ? s.length : end + 3;
      continue;
    }
    if (s[lt + 1] === '!' || s[lt + 1] === '?') {
      const end = s.indexOf('>', lt);
      i = end < 0 ? s.length : end + 1;
      continue;
    }
    TAG.lastIndex = lt;
    const m = TAG.exec(s);
    if (!m) {
      out += '&lt;';
      i = lt + 1;
      continue;
    }
    const closing = m[1] === '/';
    const tag = m[2]!.toLowerCase();
    i = lt + m[0].length;
    if (DROP_WITH_CONTENT.has(tag)) {
      if (!closing) {
        const close = new RegExp(`</${tag}\\s*>`, 'i').exec(s.slice(i));
        i = close ? i + close.index + close[0].length : s.length;
      }
      continue;
    }
    if (!ALLOWED_TAGS.has(tag)) continue;
    if (closing) {
      if (!VOID_TAGS.has(tag)) out += `</${tag}>`;
      continue;
    }
    out += `<${tag}${cleanAttrs(tag, m[3] ?? '')}>`;
  }
  return out;
}
