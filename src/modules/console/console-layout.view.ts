import { plainList } from './plain-words.ts';
import { html, raw, type SafeHtml } from '../../platform/http/html.ts';
import { asset } from './console.assets.ts';
import type { Viewer } from './console.http.ts';
import { can } from './console.http.ts';
import { consoleLang, t } from './console-lang.ts';
import type { ConsoleMessages } from '../i18n/i18n.ts';

/**
 * One layout for every console page: a left navigation (on phones a top bar whose menu folds away), the page title,
 * flash messages, content. One small stylesheet inline (no build step); pages work without
 * JavaScript.
 */
const CSS = raw(`<style>
:root{--bg:#f6f7f9;--card:#fff;--text:#1b1d22;--muted:#555b66;--line:#dde1e7;--accent:#2746c4;--accent-dark:#1c3599;
--danger:#b42318;--ok:#116a3b;--radius:8px;font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--text);background:var(--bg)}
*{box-sizing:border-box}body{margin:0;line-height:1.5}
a{color:var(--accent)}a:hover{color:var(--accent-dark)}
.skip{position:absolute;left:-999px}.skip:focus{left:1rem;top:1rem;background:#fff;padding:.5rem;z-index:10}
.shell{display:grid;grid-template-columns:15rem minmax(0,1fr);min-height:100vh}
.topbar{display:none}
.nav{background:#14213d;color:#e8ecf4;padding:1.25rem 1rem;display:flex;flex-direction:column;gap:.25rem}
.nav .brand{font-weight:700;font-size:1.15rem;color:#fff;text-decoration:none;margin-bottom:1rem;display:block}
.nav .account{font-size:.8rem;text-transform:uppercase;letter-spacing:.04em;color:#b8c2d6;margin:.75rem 0 .25rem}
.nav a.item{color:#e8ecf4;text-decoration:none;padding:.45rem .6rem;border-radius:6px;display:block}
.nav a.item:hover,.nav a.item[aria-current=page]{background:#22335c;color:#fff}
.nav .sign-out{margin-top:auto}.nav .who{font-size:.85rem;color:#b8c2d6;margin:.5rem 0;word-break:break-all}
.nav button.link{background:none;border:1px solid #4a5a80;color:#e8ecf4;padding:.35rem .7rem;border-radius:6px;cursor:pointer;font:inherit}
main{padding:1.5rem 2rem;max-width:72rem;width:100%;min-width:0}
h1{font-size:1.5rem;margin:0 0 1rem}h2{font-size:1.15rem;margin:1.5rem 0 .75rem}
.card{background:var(--card);border:1px solid var(--line);border-radius:var(--radius);padding:1rem 1.25rem;margin-bottom:1rem}
.table-wrap{overflow-x:auto;background:var(--card);border:1px solid var(--line);border-radius:var(--radius)}
table{border-collapse:collapse;width:100%}th,td{text-align:left;padding:.6rem .8rem;border-bottom:1px solid var(--line);vertical-align:top}
th{font-size:.8rem;text-transform:uppercase;letter-spacing:.03em;color:var(--muted);background:#fafbfc}
tr:last-child td,tr:last-child th{border-bottom:0}td.num,th.num{text-align:right;font-variant-numeric:tabular-nums}td.num{white-space:nowrap}
tbody th{font-size:inherit;text-transform:none;letter-spacing:0;color:var(--text);background:none;font-weight:600}
.button,button{display:inline-block;background:var(--accent);color:#fff;border:0;border-radius:6px;padding:.55rem 1rem;font:inherit;
font-weight:600;cursor:pointer;text-decoration:none;min-height:2.5rem}
.button:hover,button:hover{background:var(--accent-dark);color:#fff}
button.secondary,.button.secondary{background:#fff;color:var(--accent);border:1px solid var(--accent)}
button.danger{background:#fff;color:var(--danger);border:1px solid var(--danger)}
.actions{display:flex;gap:.5rem;flex-wrap:wrap;align-items:center}
label{display:block;font-weight:600;margin-bottom:.25rem}
.field{margin-bottom:.9rem}.hint{color:var(--muted);font-size:.85rem;margin:.15rem 0 0}
input[type=text],input[type=email],input[type=password],input[type=number],input[type=datetime-local],input[type=date],input[type=search],select,textarea{
width:100%;max-width:32rem;padding:.5rem .6rem;border:1px solid #b9c0cc;border-radius:6px;font:inherit;background:#fff;color:var(--text)}
input:focus,select:focus,textarea:focus,button:focus,a:focus{outline:3px solid #9db2ff;outline-offset:1px}
input[aria-invalid=true],select[aria-invalid=true],textarea[aria-invalid=true]{border-color:var(--danger)}
.error{color:var(--danger);font-size:.9rem;margin:.2rem 0 0}
.check{display:flex;gap:.5rem;align-items:center;font-weight:400}.check input{width:1.1rem;height:1.1rem}
.grid{display:grid;grid-template-columns:repeat(auto-fill,minmax(14rem,1fr));gap:0 1rem}
.flash{padding:.75rem 1rem;border-radius:var(--radius);margin-bottom:1rem;border:1px solid}
.flash.ok{background:#e9f7ef;border-color:#9fd8b6;color:var(--ok)}.flash.bad{background:#fdecea;border-color:#f3b1aa;color:var(--danger)}
.muted{color:var(--muted)}.pill{display:inline-block;padding:.05rem .5rem;border-radius:999px;background:#eef1f6;font-size:.8rem}
.tabs{display:flex;gap:.25rem;flex-wrap:nowrap;overflow-x:auto;white-space:nowrap;margin:0 0 1rem;padding:0;list-style:none;border-bottom:1px solid var(--line);scrollbar-width:thin}
.tabs a{display:block;padding:.5rem .8rem;text-decoration:none;border-bottom:3px solid transparent;color:var(--text)}
.tabs a[aria-current]{border-color:var(--accent);font-weight:600}
.subtabs{display:flex;gap:.35rem;flex-wrap:nowrap;overflow-x:auto;white-space:nowrap;margin:-.25rem 0 1.25rem;padding:0 0 .25rem;list-style:none;scrollbar-width:thin}
.subtabs a{display:block;padding:.3rem .75rem;border-radius:999px;text-decoration:none;color:var(--text);border:1px solid var(--line);background:var(--card);font-size:.92rem}
.subtabs a[aria-current=page]{background:var(--accent);border-color:var(--accent);color:#fff;font-weight:600}
details.item{background:var(--card);border:1px solid var(--line);border-radius:var(--radius);margin-bottom:.5rem}
details.item summary{padding:.7rem 1rem;cursor:pointer;display:flex;gap:1rem;flex-wrap:wrap;align-items:baseline}
details.item summary .edit{margin-left:auto;color:var(--accent);font-size:.9rem}details.item[open] summary .edit{visibility:hidden}
.card h2{margin-top:.25rem}
details.item .body{padding:0 1rem 1rem}
code.secret{display:block;padding:.75rem;background:#111827;color:#e5e7eb;border-radius:6px;word-break:break-all;font-size:.95rem}
.spacer{flex:1}.filters .grid{grid-template-columns:repeat(auto-fill,minmax(14rem,1fr))}.pager{margin-top:1rem}
.pill.status-paid{background:#e3f5ea;color:#0d5c33}.pill.status-pending{background:#fff4d6;color:#7a4d00}
.pill.status-refunded,.pill.status-canceled{background:#f1f1f3;color:#454b55}
.big-line{font-size:1.25rem;margin:0 0 .75rem;display:flex;gap:.6rem;align-items:center;flex-wrap:wrap}
dl.facts{display:grid;grid-template-columns:repeat(auto-fill,minmax(13rem,1fr));gap:.5rem 1.5rem;margin:0}
dl.facts dt{font-size:.8rem;text-transform:uppercase;letter-spacing:.03em;color:var(--muted)}dl.facts dd{margin:0}
ol.activity{list-style:none;padding:0;margin:0;border-left:3px solid var(--line)}
ol.activity li{padding:.35rem 0 .35rem 1rem}ol.activity time{font-variant-numeric:tabular-nums;color:var(--muted);margin-right:.5rem}
h3{font-size:1rem;margin:.25rem 0 .75rem}* + h3{margin-top:1.5rem}
a.danger-link{background:#fff;color:var(--danger);border:1px solid var(--danger)}a.danger-link:hover{background:#fdecea;color:var(--danger)}
button.danger-solid{background:var(--danger)}button.danger-solid:hover{background:#8f1c13}
.stats-row{display:grid;grid-template-columns:repeat(auto-fill,minmax(13rem,1fr));gap:1rem;margin-bottom:1rem}
.stat-card{background:var(--card);border:1px solid var(--line);border-radius:var(--radius);padding:.9rem 1.1rem;display:flex;flex-direction:column}
.stat-card span{font-size:.8rem;text-transform:uppercase;letter-spacing:.03em;color:var(--muted)}
.stat-card strong{font-size:1.5rem;font-variant-numeric:tabular-nums}.stat-card small{color:var(--muted)}
.section-head{display:flex;justify-content:space-between;align-items:center;gap:1rem;flex-wrap:wrap}
.segmented{display:flex;border:1px solid var(--line);border-radius:6px;overflow:hidden}
.segmented a{padding:.35rem .8rem;text-decoration:none;color:var(--text)}.segmented a[aria-current=page]{background:var(--accent);color:#fff}
figure.chart-figure{margin:0}svg.chart{width:100%;height:auto;display:block}
svg.chart .bar{fill:var(--accent)}svg.chart .bar.neg{fill:var(--danger)}svg.chart .grid{stroke:#e6e9ef}svg.chart .axis{stroke:#9aa3b2}
svg.chart .tick{font-size:12px;fill:var(--muted);font-family:inherit}
figcaption{color:var(--muted);font-size:.9rem;margin:.5rem 0}
.hbar{display:inline-block;width:8rem;height:.6rem;background:#e6e9ef;border-radius:999px;overflow:hidden;vertical-align:middle}
.hbar span{display:block;height:100%;background:var(--accent)}td.bar-cell{white-space:nowrap}
.two-col{display:grid;grid-template-columns:repeat(auto-fit,minmax(20rem,1fr));gap:1rem}
progress{width:100%;height:1rem}ul.plain{list-style:none;padding:0;margin:0}ul.plain li{padding:.3rem 0;border-bottom:1px solid var(--line)}
.report-nav{display:inline-flex;margin:0 0 1rem}tr.total th,tr.total td{background:#fafbfc}
fieldset.plain-fieldset{border:0;padding:0;margin:0 0 .5rem}fieldset.plain-fieldset legend{font-weight:700;margin-bottom:.5rem}
.nav-search{margin:.25rem 0 .5rem}.nav-search input{max-width:100%;min-width:9rem}
.center{max-width:26rem;margin:8vh auto;padding:0 1rem}.center .card{padding:1.5rem}
.default-submit{position:absolute;left:-9999px;width:1px;height:1px;overflow:hidden}
.md-preview{border:1px dashed #b9c0cc;border-radius:var(--radius);padding:.75rem 1rem;margin-top:.5rem;background:#fff;max-width:48rem;overflow-wrap:anywhere}
.md-preview>h2{font-size:1rem;margin:0 0 .5rem;color:var(--muted)}.md-body>:first-child{margin-top:0}.md-body>:last-child{margin-bottom:0}
.empty{border-style:dashed;padding:1.25rem}.empty p{margin:0 0 .75rem}.empty p:last-child{margin-bottom:0}.empty .next{overflow-wrap:anywhere}
@media (max-width:48rem){.shell{grid-template-columns:minmax(0,1fr);grid-template-rows:auto 1fr}.nav{display:none}
.topbar{display:flex;flex-wrap:wrap;align-items:center;gap:0 .75rem;background:#14213d;color:#e8ecf4;padding:.5rem .75rem;position:relative}
.topbar .brand{font-weight:700;font-size:1.1rem;color:#fff;text-decoration:none}
.topbar .account{flex:1;min-width:0;font-size:.85rem;color:#b8c2d6;white-space:nowrap;overflow:hidden;text-overflow:ellipsis}
.topbar details{margin-left:auto}
.topbar summary{list-style:none;cursor:pointer;padding:.4rem .8rem;border:1px solid #4a5a80;border-radius:6px;color:#fff;min-height:2.5rem;display:flex;align-items:center;gap:.4rem}
.topbar summary::-webkit-details-marker{display:none}.topbar summary::before{content:"\\2630";font-size:1.1rem;line-height:1}
.topbar details[open] summary{background:#22335c}
.topbar .menu{position:absolute;left:0;right:0;top:100%;z-index:20;background:#14213d;padding:.5rem .75rem 1rem;display:flex;flex-direction:column;gap:.15rem;box-shadow:0 8px 16px rgba(0,0,0,.25)}
.topbar .menu a.item{color:#e8ecf4;text-decoration:none;padding:.6rem .6rem;border-radius:6px;display:block}
.topbar .menu a.item[aria-current=page]{background:#22335c;color:#fff}
.topbar .menu form{margin-top:.5rem;border-top:1px solid #2c3d66;padding-top:.75rem}.topbar .who{font-size:.85rem;color:#b8c2d6;margin:0 0 .5rem;overflow-wrap:anywhere}
.topbar button.link{background:none;border:1px solid #4a5a80;color:#e8ecf4;padding:.35rem .7rem;border-radius:6px;cursor:pointer;font:inherit}
svg.chart .tick{font-size:22px}main{padding:1rem}h1{font-size:1.3rem}
.card{padding:.9rem 1rem}.stats-row{grid-template-columns:repeat(2,minmax(0,1fr));gap:.6rem}.stat-card{padding:.7rem .8rem}.stat-card strong{font-size:1.2rem}
.two-col{grid-template-columns:minmax(0,1fr)}.grid,.filters .grid{grid-template-columns:minmax(0,1fr)}dl.facts{grid-template-columns:minmax(0,1fr) minmax(0,1fr)}
th,td{padding:.5rem .6rem}.tabs a{padding:.5rem .55rem}}
</style>`);

export interface Flash {
  kind: 'ok' | 'bad';
  text: string;
}

/** Messages shown after a form redirected (`?done=<key>`): fixed texts, never text from the URL. */
const DONE: Record<string, (m: ConsoleMessages) => string> = {
  '2fa-on': (m) => m.done2faOn,
  '2fa-off': (m) => m.done2faOff,
  'password-changed': (m) => m.donePasswordChanged,
  'event-created': (m) => m.doneEventCreated,
  'event-saved': (m) => m.doneEventSaved,
  'event-duplicated': (m) => m.doneEventDuplicated,
  'event-deleted': (m) => m.doneEventDeleted,
  saved: (m) => m.doneSaved,
  added: (m) => m.doneAdded,
  removed: (m) => m.doneRemoved,
  generated: (m) => m.doneGenerated,
  invited: (m) => m.doneInvited,
  'member-saved': (m) => m.doneMemberSaved,
  'token-revoked': (m) => m.doneTokenRevoked,
  queued: (m) => m.doneQueued,
  'report-deleted': (m) => m.doneReportDeleted,
  language: (m) => m.doneLanguage,
};

export function flashOf(query: unknown): Flash | null {
  const q = (query ?? {}) as Record<string, unknown>;
  const say = typeof q.done === 'string' && Object.hasOwn(DONE, q.done) ? DONE[q.done] : undefined;
  return say ? { kind: 'ok', text: say(t()) } : null;
}

function head(title: string): SafeHtml {
  return html`<head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <meta name="robots" content="noindex" />
    <title>${title} · ${t().consoleTitle}</title>
    <link rel="icon" href="${asset('icon.svg')}" type="image/svg+xml" />
    ${CSS}
  </head>`;
}

/** A signed-in page. `active` names the navigation entry to mark. */
export function consolePage(opts: {
  title: string;
  viewer: Viewer;
  active?: string;
  flash?: Flash | null;
  body: SafeHtml;
}): string {
  const { viewer } = opts;
  const m = t();
  const acct = viewer.account;
  const item = (href: string, label: string, key: string) =>
    html`<a class="item" href="${href}" ${opts.active === key ? raw('aria-current="page"') : ''}>${label}</a>`;
  const base = acct ? `/console/a/${encodeURIComponent(acct.slug)}` : '';
  // the same entries twice: a sidebar on wide screens, a menu that folds away on phones (a
  // <details>, so it opens without script); CSS shows one of the two, never both
  const items = html`${
    acct
      ? html`${can(viewer, 'events.read') ? item(`${base}/events`, m.navEvents, 'events') : ''}
        ${
          can(viewer, 'orders.read')
            ? html`<form method="get" action="${base}/orders" role="search" class="nav-search">
                <input name="q" type="search" aria-label="${m.navSearchOrders}" title="${m.navSearchTitle}" placeholder="${m.navFindOrder}" autocomplete="off" />
              </form>`
            : ''
        }
        ${can(viewer, 'checkin') ? item(`${base}/door`, m.navDoor, 'door') : ''}
        ${can(viewer, 'team.manage') ? item(`${base}/team`, m.navTeam, 'team') : ''}
        ${can(viewer, 'tokens.manage') ? item(`${base}/tokens`, m.navTokens, 'tokens') : ''}
        ${can(viewer, 'webhooks.manage') ? item(`${base}/webhooks`, m.navWebhooks, 'webhooks') : ''}
        ${can(viewer, 'invoicing.manage') ? item(`${base}/invoicing`, m.navInvoicing, 'invoicing') : ''}
        ${can(viewer, 'wallet.manage') ? item(`${base}/wallet`, m.navWallet, 'wallet') : ''}`
      : ''
  }
  ${viewer.accounts.length > 1 ? item('/console/accounts', m.navSwitchAccount, 'accounts') : ''}
  ${item('/console/me', m.navYourSignIn, 'me')}`;
  const signOut = html`<form class="sign-out" method="post" action="/console/sign-out">
    <div class="who">${viewer.session.name || viewer.session.email}${acct ? html` · ${roleName(acct.role)}` : ''}</div>
    <input type="hidden" name="csrf" value="${viewer.csrf}" />
    <button class="link" type="submit">${m.signOut}</button>
  </form>`;
  return `<!doctype html>${html`<html lang="${consoleLang()}">
    ${head(opts.title)}
    <body>
      <a class="skip" href="#main">${m.skipToContent}</a>
      <div class="shell">
        <header class="topbar">
          <a class="brand" href="/console">admit</a>
          <span class="account">${acct ? acct.name : ''}</span>
          <details>
            <summary>${m.menu}</summary>
            <nav class="menu" aria-label="${m.consoleMenu}">${items}${signOut}</nav>
          </details>
        </header>
        <nav class="nav" aria-label="${m.consoleNav}">
          <a class="brand" href="/console">admit</a>
          ${acct ? html`<div class="account">${acct.name}</div>` : ''} ${items} ${signOut}
        </nav>
        <main id="main">
          <h1>${opts.title}</h1>
          ${opts.flash ? html`<div class="flash ${opts.flash.kind}" role="status">${opts.flash.text}</div>` : ''}
          ${opts.body}
        </main>
      </div>
    </body>
  </html>`}`;
}

/** A page without a session (sign-in, reset, invitation): a centred card. */
export function publicPage(title: string, body: SafeHtml): string {
  return `<!doctype html>${html`<html lang="${consoleLang()}">
    ${head(title)}
    <body>
      <main class="center" id="main">
        <p><strong>admit</strong> ${t().consoleWord}</p>
        <div class="card">
          <h1>${title}</h1>
          ${body}
        </div>
      </main>
    </body>
  </html>`}`;
}

/** A role as the console names it ("owner", "Inhaber"). */
export function roleName(role: string): string {
  const m = t();
  const names: Record<string, string> = { owner: m.roleOwner, manager: m.roleManager, door: m.roleDoor, viewer: m.roleViewer };
  return names[role] ?? role;
}

export type FieldErrors = Record<string, string[] | undefined>;

/** A labelled input with its error beside it (aria-invalid, aria-describedby) and the input kept. */
export function field(opts: {
  name: string;
  label: string;
  value?: string;
  type?: string;
  errors?: FieldErrors;
  hint?: string;
  required?: boolean;
  autocomplete?: string;
  id?: string;
  attrs?: string;
}): SafeHtml {
  const id = opts.id ?? `f-${opts.name}`;
  const errs = opts.errors?.[opts.name] ?? [];
  const describedBy = [opts.hint ? `${id}-hint` : '', errs.length ? `${id}-err` : ''].filter(Boolean).join(' ');
  return html`<div class="field">
    <label for="${id}">${opts.label}</label>
    <input
      id="${id}"
      name="${opts.name}"
      type="${opts.type ?? 'text'}"
      value="${opts.value ?? ''}"
      ${opts.required ? raw('required') : ''}
      ${opts.autocomplete ? raw(`autocomplete="${opts.autocomplete}"`) : ''}
      ${errs.length ? raw('aria-invalid="true"') : ''}
      ${describedBy ? raw(`aria-describedby="${describedBy}"`) : ''}
      ${opts.attrs ? raw(opts.attrs) : ''}
    />
    ${opts.hint ? html`<p class="hint" id="${id}-hint">${opts.hint}</p>` : ''}
    ${errs.length ? html`<p class="error" id="${id}-err">${plainList(errs)}</p>` : ''}
  </div>`;
}

export function checkbox(opts: { name: string; label: string; checked: boolean; id?: string; value?: string }): SafeHtml {
  const id = opts.id ?? `f-${opts.name}`;
  return html`<div class="field">
    <label class="check" for="${id}"
      ><input type="checkbox" id="${id}" name="${opts.name}" value="${opts.value ?? '1'}" ${opts.checked ? raw('checked') : ''} />
      ${opts.label}</label
    >
  </div>`;
}

export function select(opts: {
  name: string;
  label: string;
  options: Array<{ value: string; label: string }>;
  value: string;
  errors?: FieldErrors;
  id?: string;
}): SafeHtml {
  const id = opts.id ?? `f-${opts.name}`;
  const errs = opts.errors?.[opts.name] ?? [];
  return html`<div class="field">
    <label for="${id}">${opts.label}</label>
    <select id="${id}" name="${opts.name}" ${errs.length ? raw(`aria-invalid="true" aria-describedby="${id}-err"`) : ''}>
      ${opts.options.map((o) => html`<option value="${o.value}" ${o.value === opts.value ? raw('selected') : ''}>${o.label}</option>`)}
    </select>
    ${errs.length ? html`<p class="error" id="${id}-err">${plainList(errs)}</p>` : ''}
  </div>`;
}

/**
 * A list with nothing in it yet: a sentence saying what will appear there and the next step (a
 * link, a button, a small form). `name` marks which list it stands for (`data-empty`).
 */
export function emptyState(opts: { name: string; text: string | SafeHtml; next?: SafeHtml | string }): SafeHtml {
  return html`<div class="card empty" data-empty="${opts.name}">
    <p>${opts.text}</p>
    ${opts.next ? html`<p class="actions next">${opts.next}</p>` : ''}
  </div>`;
}

/** An empty state's next step as a button-styled link. */
export const nextStep = (href: string, label: string, kind: 'primary' | 'secondary' = 'primary'): SafeHtml =>
  html`<a class="button${kind === 'secondary' ? ' secondary' : ''}" href="${href}">${label}</a>`;

export function hiddenCsrf(token: string): SafeHtml {
  return html`<input type="hidden" name="csrf" value="${token}" />`;
}

/** A form that is one button: posts to `action` with the CSRF token (revoke, delete, resend...). */
export function buttonForm(opts: {
  action: string;
  csrf: string;
  label: string;
  kind?: 'secondary' | 'danger';
  ariaLabel?: string;
}): SafeHtml {
  return html`<form method="post" action="${opts.action}">
    ${hiddenCsrf(opts.csrf)}
    <button type="submit"${opts.kind ? html` class="${opts.kind}"` : ''}${opts.ariaLabel ? html` aria-label="${opts.ariaLabel}"` : ''}>${opts.label}</button>
  </form>`;
}
