import sanitize from 'sanitize-html';
import { describe, expect, it } from 'vitest';
import { isSafeUrl, sanitizeHtml } from './sanitize.ts';

/** Whatever the input, the output must not contain anything that can run script. */
function assertInert(out: string) {
  expect(out).not.toMatch(/<script/i);
  expect(out).not.toMatch(/<style/i);
  expect(out).not.toMatch(/<iframe|<object|<embed|<svg|<math|<form|<input|<meta|<link|<base/i);
  // inside tags (escaped text such as "&lt;img onerror=...&gt;" is inert)
  expect(out).not.toMatch(/<[^>]*\s(on[a-z]+|style)\s*=/i);
  expect(out).not.toMatch(/<[^>]*(javascript|vbscript|data):/i);
}

describe('sanitizeHtml', () => {
  const payloads = [
    '<script>alert(1)</script>',
    '<SCRIPT SRC=http://x/xss.js></SCRIPT>',
    '<scr<script>ipt>alert(1)</script>',
    '<img src=x onerror=alert(1)>',
    '<img/src=x onerror=alert(1)>',
    '<img src="x" ONERROR="alert(1)">',
    '<svg onload=alert(1)>',
    '<svg><script>alert(1)</script></svg>',
    '<a href="javascript:alert(1)">x</a>',
    '<a href="JaVaScRiPt:alert(1)">x</a>',
    '<a href=" java\tscript:alert(1)">x</a>',
    '<a href="&#106;avascript:alert(1)">x</a>',
    '<a href="&#x6A;avascript&colon;alert(1)">x</a>',
    '<a href="vbscript:msgbox(1)">x</a>',
    '<a href="data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==">x</a>',
    '<iframe src="https://evil.example"></iframe>',
    '<object data="x"></object><embed src="x">',
    '<style>body{background:url(javascript:alert(1))}</style>',
    '<div style="background:url(javascript:alert(1))">x</div>',
    '<p onclick="alert(1)" onmouseover=alert(1)>hi</p>',
    '<form action="https://evil"><input name=x></form>',
    '<meta http-equiv="refresh" content="0;url=javascript:alert(1)">',
    '<base href="javascript:alert(1)//">',
    '<link rel=stylesheet href="https://evil/x.css">',
    '<!--<script>alert(1)</script>-->',
    '<div <script>alert(1)</script>>',
    '<<script>script>alert(1)<</script>/script>',
    '<math><mtext><table><mglyph><style><img src=x onerror=alert(1)>',
    '<textarea><script>alert(1)</script></textarea>',
    '<noscript><p title="</noscript><img src=x onerror=alert(1)>"></noscript>',
    '<script>alert(1)',
  ];
  for (const p of payloads) {
    it(`neutralises ${p}`, () => {
      const out = sanitizeHtml(p);
      assertInert(out);
      // no raw tag the tokenizer did not understand survives: every "<" starts an allowed tag
      for (const m of out.matchAll(/<\/?([a-zA-Z][a-zA-Z0-9]*)/g)) {
        expect(['a', 'p', 'div', 'img', 'table', 'span']).toContain(m[1]!.toLowerCase());
      }
    });
  }

  it('keeps harmless markup and safe links', () => {
    const html =
      '<header class="top"><h1 id="t">Hello &amp; welcome</h1></header><p>A <strong>bold</strong> <a href="https://example.org/?a=1&amp;b=2" target="_blank">link</a> and <a href="/rel">relative</a>.</p><img src="/_img/1/abc" alt="Logo"><ul><li>one</li></ul>';
    const out = sanitizeHtml(html);
    expect(out).toContain('<header class="top"><h1 id="t">Hello &amp; welcome</h1></header>');
    expect(out).toContain('<a href="https://example.org/?a=1&amp;b=2" target="_blank" rel="noopener noreferrer">link</a>');
    expect(out).toContain('<a href="/rel">relative</a>');
    expect(out).toContain('<img src="/_img/1/abc" alt="Logo">');
    expect(out).toContain('<ul><li>one</li></ul>');
  });

  it('escapes stray brackets in text', () => {
    expect(sanitizeHtml('1 < 2 > 0')).toBe('1 &lt; 2 &gt; 0');
  });
});

describe('isSafeUrl', () => {
  it('allows http(s), mailto and relative URLs only', () => {
    for (const u of ['https://x.org', 'http://x.org/a', 'mailto:a@b.c', '/path', '#frag', '?q=1', 'rel/ative', '//x.org/a']) {
      expect(isSafeUrl(u), u).toBe(true);
    }
    for (const u of ['javascript:alert(1)', ' javascript:1', 'java\nscript:1', 'data:text/html,x', 'vbscript:x', 'file:///etc']) {
      expect(isSafeUrl(u), u).toBe(false);
    }
  });
});

const KEPT_ATTRS = new Set([
  'class',
  'id',
  'title',
  'lang',
  'dir',
  'role',
  'href',
  'rel',
  'target',
  'src',
  'alt',
  'width',
  'height',
]);
const MORE_KEPT_ATTRS = new Set(['colspan', 'rowspan', 'scope', 'datetime', 'start']);
const NEVER_KEPT_TAGS = new Set(
  'script style iframe object embed svg math form input button textarea select option meta link base noscript template title xmp plaintext noembed noframes frame frameset applet isindex'.split(
    ' ',
  ),
);

const withoutAttributeValues = (html: string) => html.replace(/="[^"]*"/g, '=""');

/**
 * Reads the output the way a browser's tokenizer would (the library's parser, reporting every
 * tag with its decoded attributes) and checks that nothing in it can run script or reach a
 * script URL; then checks that cleaning again changes nothing, so a second parse cannot mutate it.
 */
function assertNoVector(out: string) {
  // attribute values are always double-quoted with '"' encoded; inside them, "onclick=" is only text
  assertInert(withoutAttributeValues(out));
  const tags: { name: string; attribs: Record<string, string> }[] = [];
  sanitize(out, { onOpenTag: (name, attribs) => tags.push({ name, attribs: { ...attribs } }) });
  for (const { name, attribs } of tags) {
    expect(NEVER_KEPT_TAGS.has(name), name).toBe(false);
    for (const [attr, value] of Object.entries(attribs)) {
      expect(KEPT_ATTRS.has(attr) || MORE_KEPT_ATTRS.has(attr) || attr.startsWith('aria-'), `${name} ${attr}`).toBe(true);
      if (attr === 'href' || attr === 'src') {
        expect(value.replace(/[\u0000-\u0020\u007f-\u009f]+/g, ''), value).not.toMatch(/^(javascript|vbscript|data|file):/i);
      }
    }
    if (attribs.target !== undefined) {
      expect(attribs.target).toBe('_blank');
      expect(attribs.rel).toBe('noopener noreferrer');
    } else {
      expect(attribs.rel).toBeUndefined();
    }
  }
  expect(sanitizeHtml(out)).toBe(out);
}

describe('sanitizeHtml against known attacks', () => {
  const attacks: [string, string | null][] = [
    // [payload, exact output where it documents the policy]
    ['<ScRiPt >alert(1)</sCrIpT >', ''],
    ['<script/src="https://evil.example/x.js"></script>', ''],
    ['<script>alert(1)</script  x>after', 'after'],
    ['<style>@import "https://evil.example/x.css";</style>ok', 'ok'],
    ['<STYLE>*{background:url("javascript:alert(1)")}</STYLE>', ''],
    ['<iframe src="javascript:alert(1)">inside</iframe>', ''],
    ['<iframe srcdoc="&lt;script&gt;alert(1)&lt;/script&gt;"></iframe>', ''],
    ['<object data="javascript:alert(1)"><param name=x value=y></object>', ''],
    ['<embed src="data:text/html,<script>alert(1)</script>">', ''],
    ['<svg/onload=alert(1)>', ''],
    ['<svg><a xlink:href="javascript:alert(1)"><text y=20>x</text></a></svg>', ''],
    ['<svg><animate onbegin=alert(1) attributeName=x dur=1s>', ''],
    ['<math><maction actiontype="statusline" xlink:href="javascript:alert(1)">x</maction></math>', ''],
    ['<math href="javascript:alert(1)">x</math>', ''],
    // event handlers in odd case, with odd whitespace and slashes
    ['<img/src=x/onerror=alert(1)>', '<img src="x/onerror=alert(1)">'], // one unquoted src value, as browsers read it
    ['<img src=x/onerror=alert(1)//>', null],
    ['<IMG SRC=x OnErRoR\n=\nalert(1)>', '<img src="x">'],
    ['<img src=x onerror\t=  "alert(1)" >', '<img src="x">'],
    ['<img src="x"/onerror="alert(1)">', '<img src="x">'],
    ['<img src="x"\fonerror="alert(1)">', '<img src="x">'],
    ['<p title="a"onclick="alert(1)">x</p>', '<p title="a">x</p>'],
    ['<details open ontoggle=alert(1)>x</details>', '<details>x</details>'],
    ['<a href="/ok" onmouseover="alert(1)" ONclick=alert(1) on-click=x>l</a>', '<a href="/ok">l</a>'],
    ['<body onload=alert(1)><p>x</p></body>', '<p>x</p>'],
    // script URLs, obfuscated
    ['<a href="jav&#x09;ascript:alert(1)">x</a>', '<a>x</a>'],
    ['<a href="jav&Tab;ascript:alert(1)">x</a>', '<a>x</a>'],
    ['<a href="  JaVaScRiPt:alert(1)">x</a>', '<a>x</a>'],
    ['<a href="\njavascript:alert(1)">x</a>', '<a>x</a>'],
    ['<a href="java\u0000script:alert(1)">x</a>', '<a>x</a>'],
    ['<a href="javascript&colon;alert(1)">x</a>', '<a>x</a>'],
    [
      '<a href="&#0000106&#0000097&#0000118&#0000097&#0000115&#0000099&#0000114&#0000105&#0000112&#0000116&#0000058alert(1)">x</a>',
      '<a>x</a>',
    ],
    ['<a href="jav<!-- -->ascript:alert(1)">x</a>', '<a>x</a>'],
    ['<a href=javascript:alert(1)>x</a>', '<a>x</a>'],
    ['<a href="data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==">x</a>', '<a>x</a>'],
    ['<a href="DATA:text/html,<script>alert(1)</script>">x</a>', '<a>x</a>'],
    ['<a href="vbscript:msgbox(1)">x</a>', '<a>x</a>'],
    ['<a href="VBScript&#58;msgbox(1)">x</a>', '<a>x</a>'],
    ['<img src="data:image/svg+xml,<svg onload=alert(1)>">', '<img>'],
    ['<img src="javascript:alert(1)" alt="">', '<img alt="">'],
    // nested and unclosed tags
    ['<scr<script>ipt>alert(1)</scr</script>ipt>', null],
    ['<<img src=x onerror=alert(1)>img src=x onerror=alert(1)>', null],
    ['<div><p><b><i>unclosed', '<div><p><b><i>unclosed</i></b></p></div>'],
    ['<p>a<p>b</div></span></p>', '<p>a</p><p>b</p>'],
    ['<img src=x onerror=alert(1)//', ''],
    ['<a href="javascript:alert(1)"', ''],
    ['<svg><p><style><img src=x onerror=alert(1)></style></p>', ''],
    // comments, CDATA, processing instructions
    ['<!--><script>alert(1)</script>', ''],
    ['<!--><img src=x onerror=alert(1)>-->', '<img src="x">--&gt;'],
    ['<!-- --!><img src=x onerror=alert(1)>-->', null],
    ['<![CDATA[><script>alert(1)</script>]]>', ''],
    ['<![CDATA[><img src=x onerror=alert(1)>]]>', ''],
    ['<?xml version="1.0"?><img src=x onerror=alert(1)?>', '<img src="x">'],
    ['<!DOCTYPE html><p>x</p>', '<p>x</p>'],
    // mutation XSS classics: raw-text and foreign content whose re-parse differs
    ['<noscript><p title="</noscript><img src=x onerror=alert(1)>">', ''],
    ['<noscript><style></noscript><img src=x onerror=alert(1)>', ''],
    ['<math><mtext><table><mglyph><style><!--</style><img title="--&gt;&lt;/mglyph&gt;&lt;img src=1 onerror=alert(1)&gt;">', ''],
    ['<math><mi><mglyph><svg><mtext><textarea><path id="</textarea><img onerror=alert(1) src=1>">', ''],
    ['<form><math><mtext></form><form><mglyph><style></math><img src onerror=alert(1)>', ''],
    ['<svg></p><style><a id="</style><img src=1 onerror=alert(1)>">', ''],
    ['<title><img src=x onerror=alert(1)></title>', ''],
    ['<textarea></textarea><img src=x onerror=alert(1)>', '<img src="x">'],
    ['<template><img src=x onerror=alert(1)></template>', ''],
    ['<xmp><img src=x onerror=alert(1)></xmp>', ''],
    ['<plaintext><img src=x onerror=alert(1)>', ''],
    ['<noembed><img title="</noembed><img src=x onerror=alert(1)>"></noembed>', ''],
    ['<select><option><img src=x onerror=alert(1)></option></select>', ''],
    ['<a href="`javascript:alert(1)`">x</a>', null],
    // srcset, formaction and friends
    ['<img srcset="javascript:alert(1) 1x, /ok.png 2x" src="/a.png">', '<img src="/a.png">'],
    ['<img src=/a.png srcset=x onerror=alert(1)>', '<img src="/a.png">'],
    ['<button formaction="javascript:alert(1)">x</button>', 'x'],
    ['<form><input type=submit formaction=javascript:alert(1)></form>', ''],
    ['<isindex action=javascript:alert(1) type=image>', ''],
    ['<base href="javascript:/">', ''],
    ['<a href="/x" xlink:href="javascript:alert(1)">x</a>', '<a href="/x">x</a>'],
    // inline styles
    ['<div style="width:expression(alert(1))">x</div>', '<div>x</div>'],
    ['<p STYLE="background:url(javascript:alert(1))">x</p>', '<p>x</p>'],
    ['<p style="background:url(&#106;avascript:alert(1))">x</p>', '<p>x</p>'],
    ['<p style=behavior:url(x.htc)>x</p>', '<p>x</p>'],
    // attribute values that try to break out of their quotes
    [
      '<div title="</div><img src=x onerror=alert(1)>">t</div>',
      '<div title="&lt;/div&gt;&lt;img src=x onerror=alert(1)&gt;">t</div>',
    ],
    ["<p title='\"><script>alert(1)</script>'>x</p>", '<p title="&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;">x</p>'],
    ['<p title="&quot; onclick=&quot;alert(1)">x</p>', '<p title="&quot; onclick=&quot;alert(1)">x</p>'],
    ['<p title=a`onclick=alert(1)>x</p>', '<p title="a`onclick=alert(1)">x</p>'],
    ['<a href="/a" title="x"" onclick="alert(1)">x</a>', null],
    ['<img alt="x\' onerror=\'alert(1)" src=/a>', '<img alt="x\' onerror=\'alert(1)" src="/a">'],
    // links keep opening a new tab only without opener access
    ['<a href=x target=_self rel=opener>y</a>', '<a href="x" target="_blank" rel="noopener noreferrer">y</a>'],
    ['<a href="/a" REL="opener">y</a>', '<a href="/a">y</a>'],
  ];
  for (const [payload, expected] of attacks) {
    it(`cleans ${JSON.stringify(payload)}`, () => {
      const out = sanitizeHtml(payload);
      assertNoVector(out);
      if (expected !== null) expect(out).toBe(expected);
    });
  }

  it('keeps the attributes the policy allows, and only those', () => {
    const out = sanitizeHtml(
      '<ol start=3 onclick=x><li>a</li></ol><time datetime="2024" style="x">t</time><table><tr><th scope=col colspan=2 width=9>h</th></tr></table><span aria-label="x" data-x=1 role=note lang=de dir=rtl>t</span>',
    );
    expect(out).toBe(
      '<ol start="3"><li>a</li></ol><time datetime="2024">t</time><table><tr><th scope="col" colspan="2">h</th></tr></table><span aria-label="x" role="note" lang="de" dir="rtl">t</span>',
    );
  });

  it('decodes entities in text and re-encodes only what is markup', () => {
    expect(sanitizeHtml('1 &lt;script&gt; &amp;nbsp; &copy; <b>&#60;i&#62;</b>')).toBe(
      '1 &lt;script&gt; &amp;nbsp; © <b>&lt;i&gt;</b>',
    );
  });

  it('keeps deep but realistic nesting', () => {
    const html = '<div>'.repeat(300) + 'deep' + '</div>'.repeat(300);
    expect(sanitizeHtml(html)).toBe(html);
  });

  it('stays fast on a megabyte of hostile input', () => {
    const MB = 1 << 20;
    const inputs = {
      nested: '<div>'.repeat(MB / 5),
      nestedDropped: '<svg>'.repeat(MB / 5),
      nestedUnknown: '<x>'.repeat(MB / 3),
      deepAndBalanced: ('<div><span>'.repeat(200) + 'x' + '</span></div>'.repeat(200)).repeat(Math.ceil(MB / 6000)),
      tags: '<b>x</b>'.repeat(MB / 8),
      brackets: '<'.repeat(MB),
      handlers: '<img/src=x/onerror=alert(1)>'.repeat(MB / 29),
      unclosedScripts: '<script>'.repeat(MB / 8),
      comments: '<!--'.repeat(MB / 4),
      attributes: `<p ${'a=1 '.repeat(MB / 4)}>`,
      entities: '&#x6A;&amp;&lt;'.repeat(MB / 15),
    };
    for (const [name, input] of Object.entries(inputs)) {
      const started = performance.now();
      const out = sanitizeHtml(input);
      // a linear pass takes well under a second here; a quadratic one on a megabyte takes minutes.
      // The bound is loose so a busy machine never fails it while a quadratic regression still does.
      expect(performance.now() - started, name).toBeLessThan(10_000);
      expect(/<script|onerror=/i.test(withoutAttributeValues(out)), name).toBe(false);
    }
    // too deep to be a page: refused whole rather than parsed in quadratic time
    expect(sanitizeHtml(inputs.nested)).toBe('');
    expect(sanitizeHtml(inputs.deepAndBalanced)).toContain('<div><span><div><span>x</span></div>');
  }, 180_000);
});

describe('isSafeUrl against obfuscation', () => {
  it('sees through entities, control characters and case', () => {
    for (const u of [
      'jav&#x09;ascript:alert(1)',
      'jav&Tab;ascript:1',
      'javascript&colon;1',
      '&#106;avascript:1',
      'java\u0000script:1',
      '\u0001javascript:1',
      '  JaVaScRiPt:1',
      'DATA:text/html,x',
      'VBSCRIPT:x',
      'tel:123',
    ]) {
      expect(isSafeUrl(u), u).toBe(false);
    }
    for (const u of ['', 'a"b', '/x?a=1&amp;b=2', 'https://x.org/javascript:1', './javascript:1']) {
      expect(isSafeUrl(u), u).toBe(true);
    }
  });

  it('agrees with what sanitizeHtml keeps in a link', () => {
    for (const u of [
      'https://x.org',
      '/p',
      '//x.org',
      'mailto:a@b.c',
      'javascript:1',
      'jav&#x09;ascript:1',
      'data:,x',
      'ftp://x',
    ]) {
      expect(sanitizeHtml(`<a href="${u}">x</a>`).includes(' href='), u).toBe(isSafeUrl(u));
    }
  });
});
