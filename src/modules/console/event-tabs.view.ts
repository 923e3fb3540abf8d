import { html, raw, type SafeHtml } from '../../platform/http/html.ts';
import { KINDS } from './catalogue-form.ts';
import { can, type Viewer } from './console.http.ts';

/** The tabs of one event's pages: details, dashboard and orders (for those who read orders), the catalogue. */
export function eventTabs(viewer: Viewer, slug: string, active: string): SafeHtml {
  const base = `/console/a/${encodeURIComponent(viewer.account!.slug)}/events/${slug}`;
  const entries = [
    { slug: '', title: 'Details' },
    ...(can(viewer, 'orders.read')
      ? [
          { slug: 'dashboard', title: 'Dashboard' },
          { slug: 'orders', title: 'Orders' },
          { slug: 'reports', title: 'Reports' },
        ]
      : []),
    ...KINDS.map((k) => ({ slug: k.slug, title: k.title })),
  ];
  return html`<ul class="tabs">
    ${entries.map(
      (k) =>
        html`<li>
          <a href="${base}${k.slug ? `/${k.slug}` : ''}" ${active === k.slug ? raw('aria-current="page"') : ''}>${k.title}</a>
        </li>`,
    )}
  </ul>`;
}
