import { html, raw, type SafeHtml } from '../../platform/http/html.ts';
import { KINDS } from './catalogue-form.ts';
import { can, type Viewer } from './console.http.ts';
import { t } from './console-lang.ts';
import { kindWord } from './catalogue-words.ts';

interface Tab {
  slug: string;
  title: string;
}

/**
 * The tabs of one event's pages, in two levels so that each fits one row at desktop width: the
 * set-up (details and the catalogue, shown as a second row while one of them is open), then the
 * dashboard, orders and reports for those who read orders. On a phone each row scrolls sideways
 * within itself rather than wrapping or widening the page.
 */
export function eventTabs(viewer: Viewer, slug: string, active: string): SafeHtml {
  const base = `/console/a/${encodeURIComponent(viewer.account!.slug)}/events/${slug}`;
  const m = t();
  const setup: Tab[] = [
    { slug: '', title: m.tabDetails },
    ...KINDS.map((k) => ({ slug: k.slug, title: kindWord(k.title) })),
    { slug: 'seating', title: m.tabSeating },
  ];
  const inSetup = setup.some((t) => t.slug === active);
  const top: Tab[] = [
    { slug: '', title: m.tabSetup },
    ...(can(viewer, 'orders.read')
      ? [
          { slug: 'dashboard', title: m.tabDashboard },
          { slug: 'orders', title: m.tabOrders },
          { slug: 'reports', title: m.tabReports },
          { slug: 'waiting-list', title: m.tabWaitingList },
          { slug: 'messages', title: m.tabMessages },
        ]
      : []),
  ];
  const href = (t: Tab) => `${base}${t.slug ? `/${t.slug}` : ''}`;
  // the set-up tab marks a section (aria-current="true"); the page itself is marked in the second row
  const topCurrent = (t: Tab) => (t.slug === '' ? inSetup : active === t.slug);
  return html`<nav aria-label="${m.tabsLabel}">
    <ul class="tabs">
      ${top.map(
        (t) =>
          html`<li>
            <a href="${href(t)}" ${topCurrent(t) ? raw(t.slug === '' ? 'aria-current="true"' : 'aria-current="page"') : ''}>${t.title}</a>
          </li>`,
      )}
    </ul>
    ${
      inSetup
        ? html`<ul class="subtabs" aria-label="${m.tabSetup}">
            ${setup.map(
              (t) => html`<li><a href="${href(t)}" ${active === t.slug ? raw('aria-current="page"') : ''}>${t.title}</a></li>`,
            )}
          </ul>`
        : ''
    }
  </nav>`;
}
