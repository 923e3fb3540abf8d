import sanitize from 'sanitize-html';

/**
 * The allowlist HTML sanitiser for organiser-written templates that reach buyers' pages, built on
 * the maintained `sanitize-html` library: the policy below is its configuration, the parsing and
 * cleaning are the library's. It keeps a fixed set of presentational elements and harmless
 * attributes, drops everything else (script, style, iframes, forms, event handlers, inline styles)
 * and allows only http(s), mailto and relative URLs. Text and attribute values are re-encoded, so
 * no markup the parser did not understand can survive as markup.
 */
const ALLOWED_TAGS = [
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
];
/** Dropped together with everything inside them (other disallowed tags lose only the tag). */
const DROP_WITH_CONTENT = [
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
  'option',
  'xmp',
  'noembed',
  'noframes',
  'plaintext',
];
const URL_SCHEMES = ['http', 'https', 'mailto'];
/** Void elements the library writes as `<img />`; listed so it never writes a closing tag for them. */
const VOID_TAGS = ['br', 'hr', 'img'];
/**
 * Browsers stop nesting at a few hundred levels (Chromium at 512), so deeper markup is not a real
 * layout; the parser keeps its open elements in an array it prepends to, which makes very deep
 * input quadratic (1 MB of nested tags took tens of seconds). Such input is refused whole: it
 * cleans to nothing (a layout that does still shows the page content, without the layout).
 */
const MAX_DEPTH = 512;

class TooDeep extends Error {}

/** The library honours allowedEmptyAttributes (it is among its defaults); its type definitions do not list it. */
type Options = sanitize.IOptions & { allowedEmptyAttributes?: string[] };

const POLICY: Options = {
  allowedTags: ALLOWED_TAGS,
  disallowedTagsMode: 'discard',
  nonTextTags: DROP_WITH_CONTENT,
  allowedAttributes: {
    '*': ['class', 'id', 'title', 'lang', 'dir', 'role', 'aria-*'],
    a: ['href', 'rel', 'target'],
    img: ['src', 'alt', 'width', 'height'],
    td: ['colspan', 'rowspan'],
    th: ['colspan', 'rowspan', 'scope'],
    time: ['datetime'],
    ol: ['start'],
  },
  allowedSchemes: URL_SCHEMES,
  allowedSchemesByTag: {},
  allowProtocolRelative: true,
  selfClosing: VOID_TAGS,
  allowedEmptyAttributes: ['alt'],
  transformTags: {
    // A link may open a new tab, but never with a rel the organiser chose: opener access is cut.
    a: (tagName, attribs) => {
      const { rel: _rel, ...rest } = attribs;
      if ('target' in rest) Object.assign(rest, { target: '_blank', rel: 'noopener noreferrer' });
      return { tagName, attribs: rest };
    },
  },
};

export function sanitizeHtml(input: string): string {
  let depth = 0;
  let out: string;
  try {
    out = sanitize(input, {
      ...POLICY,
      onOpenTag: () => {
        if (++depth > MAX_DEPTH) throw new TooDeep();
      },
      onCloseTag: () => {
        depth--;
      },
    });
  } catch (err) {
    if (err instanceof TooDeep) return '';
    throw err;
  }
  // The library writes void elements XHTML-style (`<img />`); pages are HTML, so keep `<img>`.
  // Text and attribute values always have `>` encoded, so " />" can only end one of these tags.
  return out.replace(/ \/>/g, '>');
}

const URL_PROBE: Options = {
  allowedTags: ['a'],
  allowedAttributes: { a: ['href'] },
  allowedSchemes: URL_SCHEMES,
  allowedSchemesByTag: {},
  allowProtocolRelative: true,
  allowedEmptyAttributes: ['href'],
};

/**
 * http(s), mailto, and relative URLs only, for a raw attribute value (entities not yet decoded).
 * The library exports no URL check of its own, so it is asked through a one-link document: the
 * answer is then exactly what sanitizeHtml keeps, decoding and whitespace tricks included.
 */
export function isSafeUrl(value: string): boolean {
  return sanitize(`<a href="${value.replace(/"/g, '&quot;')}"></a>`, URL_PROBE).startsWith('<a href');
}
