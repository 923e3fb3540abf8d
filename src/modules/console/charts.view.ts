import { escapeHtml as esc, html, raw, type SafeHtml } from '../../platform/http/html.ts';
import { t } from './console-lang.ts';

/**
 * Charts as server-rendered SVG (no script, no canvas): a bar chart that names itself to screen
 * readers and carries its numbers in a table below, so the chart is never the only way to read them.
 */

export interface Bar {
  label: string;
  value: number;
}

/** A round step for about `count` gridlines over `span` (1, 2 or 5 times a power of ten). */
export function niceStep(span: number, count = 4): number {
  if (span <= 0) return 1;
  const raw = span / count;
  const power = 10 ** Math.floor(Math.log10(raw));
  const unit = raw / power;
  return (unit <= 1 ? 1 : unit <= 2 ? 2 : unit <= 5 ? 5 : 10) * power;
}

const W = 800;
const H = 260;
const M = { top: 12, right: 28, bottom: 36, left: 84 };

export function barChart(opts: {
  id: string;
  title: string;
  summary: string;
  bars: Bar[];
  /** a value as an axis label or a bar's tooltip */
  format: (v: number) => string;
  /** the smallest gridline step (1 for counts: no half tickets) */
  minStep?: number;
  /** the table below the chart: its column heads and each bar's cells */
  table: { head: string[]; rows: string[][] };
}): SafeHtml {
  const { bars } = opts;
  const plotW = W - M.left - M.right;
  const plotH = H - M.top - M.bottom;
  const max = Math.max(0, ...bars.map((b) => b.value));
  const min = Math.min(0, ...bars.map((b) => b.value));
  const step = Math.max(opts.minStep ?? 0, niceStep(max - min || 1));
  const top = Math.ceil(max / step) * step || step;
  const bottom = Math.floor(min / step) * step;
  const y = (v: number) => M.top + ((top - v) / (top - bottom)) * plotH;
  const slot = bars.length ? plotW / bars.length : plotW;
  const barW = Math.max(1, Math.min(48, slot * 0.72));
  const every = Math.max(1, Math.ceil(bars.length / 10));
  const ticks: number[] = [];
  // nothing to show: the zero line alone, labelled once (a step of one cent read "0 EUR" twice)
  const empty = max === 0 && min === 0;
  for (let v = bottom; v <= (empty ? 0 : top + step / 2); v += step) ticks.push(v);
  const svg = `<svg viewBox="0 0 ${W} ${H}" role="img" aria-labelledby="${opts.id}-t ${opts.id}-d" class="chart" preserveAspectRatio="xMidYMid meet">
<title id="${opts.id}-t">${esc(opts.title)}</title><desc id="${opts.id}-d">${esc(opts.summary)}</desc>
${ticks
  .map(
    (v) =>
      `<line x1="${M.left}" x2="${W - M.right}" y1="${y(v).toFixed(1)}" y2="${y(v).toFixed(1)}" class="${v === 0 ? 'axis' : 'grid'}"/><text x="${M.left - 8}" y="${(y(v) + 4).toFixed(1)}" text-anchor="end" class="tick">${esc(opts.format(v))}</text>`,
  )
  .join('\n')}
${bars
  .map((b, i) => {
    const x = M.left + i * slot + (slot - barW) / 2;
    const y0 = y(Math.max(0, b.value));
    const h = Math.abs(y(0) - y(b.value));
    const label =
      i % every === 0
        ? `<text x="${(x + barW / 2).toFixed(1)}" y="${H - M.bottom + 18}" text-anchor="middle" class="tick">${esc(b.label)}</text>`
        : '';
    return `<rect x="${x.toFixed(1)}" y="${y0.toFixed(1)}" width="${barW.toFixed(1)}" height="${Math.max(h, b.value ? 1 : 0).toFixed(1)}" class="${b.value < 0 ? 'bar neg' : 'bar'}"><title>${esc(`${b.label}: ${opts.format(b.value)}`)}</title></rect>${label}`;
  })
  .join('\n')}
</svg>`;
  return html`<figure class="chart-figure">
    ${raw(svg)}
    <figcaption>${opts.summary}</figcaption>
    <details>
      <summary>${t().chartNumbers}</summary>
      <div class="table-wrap" tabindex="0" role="region" aria-label="${t().chartNumbersOf(opts.title)}">
        <table>
          <thead>
            <tr>
              ${opts.table.head.map((h, i) => html`<th scope="col" class="${i ? 'num' : ''}">${h}</th>`)}
            </tr>
          </thead>
          <tbody>
            ${opts.table.rows.map(
              (r) => html`<tr>
                ${r.map((c, i) => (i ? html`<td class="num">${c}</td>` : html`<th scope="row">${c}</th>`))}
              </tr>`,
            )}
          </tbody>
        </table>
      </div>
    </details>
  </figure>`;
}
