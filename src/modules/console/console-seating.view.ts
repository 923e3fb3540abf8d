import { html, raw } from '../../platform/http/html.ts';
import type { SeatMap } from '../events/seat-map.service.ts';
import { asset } from './console.assets.ts';
import { can, type Viewer } from './console.http.ts';
import { consolePage, hiddenCsrf, select, type FieldErrors, type Flash } from './console-layout.view.ts';
import { t } from './console-lang.ts';
import { eventTabs } from './event-tabs.view.ts';

/*
 * An event's seating in the console (contract section 12): the hall drawn with every seat's state
 * (the sold map), the categories' ticket types, the seats kept off sale (clicked on the drawing
 * with seating.js, or typed), and the pretix plan itself (pasted, or read from a file). One form
 * saves the event document's `seating` over its ETag; the event writer refuses a change that
 * would drop or re-map a held or sold seat, naming the seats.
 */

export interface SeatingPageView {
  viewer: Viewer;
  event: { slug: string; name: string; etag: string };
  types: Array<{ key: string; name: string }>;
  /** the plan as stored, or null when the event sells no seats */
  map: SeatMap | null;
  /** every seat's state in plan order: a, h, s, b */
  codes: string;
  /** the form's values: as stored, or as sent when saving was refused */
  form: { plan: string; blocked: string; categories: Record<string, string> };
  /** the plan's categories, from the form's plan when it could be read */
  categories: string[];
  errors?: FieldErrors;
  flash?: Flash | null;
}

const STATE_FILL: Record<string, string> = { a: '', h: '#e0a526', s: '#4d4d4d', b: '#ffffff' };

export function seatingPage(v: SeatingPageView): string {
  const m = t();
  const write = can(v.viewer, 'events.write');
  const here = `/console/a/${encodeURIComponent(v.viewer.account!.slug)}/events/${encodeURIComponent(v.event.slug)}/seating`;
  const tally = { a: 0, h: 0, s: 0, b: 0 } as Record<string, number>;
  for (const c of v.codes) tally[c] = (tally[c] ?? 0) + 1;
  const colour = new Map(v.map?.categories.map((c) => [c.name, c.color ?? '#2f6fb0']) ?? []);
  const errs = v.errors ?? {};
  const errorOf = (k: string) => (errs[k]?.length ? html`<p class="error" id="f-${k}-err">${errs[k]!.join(' ')}</p>` : '');
  const legendDot = (fill: string, stroke = '') =>
    raw(
      `<svg width="16" height="16" viewBox="0 0 16 16" aria-hidden="true" focusable="false"><circle cx="8" cy="8" r="6" fill="${fill}"${stroke ? ` stroke="${stroke}" stroke-width="2"` : ''}/></svg>`,
    );
  const drawing = v.map
    ? html`<section class="card" aria-labelledby="hall">
        <h2 id="hall">${m.seatingPlanHeading}</h2>
        <p>${m.seatingCounts(tally.a ?? 0, tally.h ?? 0, tally.s ?? 0, tally.b ?? 0)}</p>
        <ul class="seat-legend">
          <li>${legendDot('#2f6fb0')} ${m.seatAvailable}</li>
          <li>${legendDot(STATE_FILL.h!)} ${m.seatHeld}</li>
          <li>${legendDot(STATE_FILL.s!)} ${m.seatSold}</li>
          <li>${legendDot(STATE_FILL.b!, '#333333')} ${m.seatBlocked}</li>
        </ul>
        ${write ? html`<p class="hint">${m.seatingMapHint}</p>` : ''}
        <div class="seat-frame" tabindex="0" role="region" aria-label="${m.seatingPlanHeading}">
          <svg viewBox="0 0 ${String(v.map.width)} ${String(v.map.height)}" role="img" aria-label="${m.seatingPlanHeading}" data-seating-plan>
            ${raw(
              v.map.areas
                .map(
                  (a) =>
                    `<rect x="${a.x}" y="${a.y}" width="${a.width}" height="${a.height}" fill="${esc(a.color ?? '#e5e5e5')}"/>` +
                    (a.text
                      ? `<text x="${a.x + a.width / 2}" y="${a.y + a.height / 2}" text-anchor="middle" dominant-baseline="middle" font-size="14">${esc(a.text)}</text>`
                      : ''),
                )
                .join(''),
            )}
            ${raw(
              v.map.seats
                .map((s, i) => {
                  const state = v.codes[i] ?? 'a';
                  const fill = state === 'a' ? (colour.get(s.category) ?? '#2f6fb0') : STATE_FILL[state]!;
                  return `<circle cx="${s.x}" cy="${s.y}" r="${s.r}" fill="${esc(fill)}"${state === 'b' ? ' stroke="#333333" stroke-width="2"' : ''} data-g="${esc(s.guid)}" data-state="${state}" data-c="${esc(colour.get(s.category) ?? '#2f6fb0')}"><title>${esc(`${s.label} · ${s.category}`)}</title></circle>`;
                })
                .join(''),
            )}
          </svg>
        </div>
      </section>`
    : html`<p class="card">${m.seatingNone}</p>`;
  const form = write
    ? html`<form method="post" action="${here}" class="card" data-seating-form>
        ${hiddenCsrf(v.viewer.csrf)}
        <input type="hidden" name="etag" value="${v.event.etag}" />
        ${
          v.categories.length
            ? html`<fieldset>
                <legend>${m.seatingCategoriesHeading}</legend>
                ${v.categories.map(
                  (c, i) =>
                    html`<input type="hidden" name="catname_${String(i)}" value="${c}" />${select({
                      name: `cat_${i}`,
                      label: c,
                      value: v.form.categories[c] ?? '',
                      errors: errs,
                      options: [
                        { value: '', label: m.seatingNotForSale },
                        ...v.types.map((ty) => ({ value: ty.key, label: ty.name })),
                      ],
                    })}`,
                )}
              </fieldset>`
            : ''
        }
        <div class="field">
          <label for="f-blocked">${m.seatingBlockedLabel}</label>
          <textarea id="f-blocked" name="blocked" rows="2" aria-describedby="f-blocked-hint${errs.blocked?.length ? ' f-blocked-err' : ''}"${errs.blocked?.length ? raw(' aria-invalid="true"') : ''}>${v.form.blocked}</textarea>
          <p class="hint" id="f-blocked-hint">${m.seatingBlockedHint}</p>
          ${errorOf('blocked')}
        </div>
        <div class="field">
          <label for="f-plan">${m.seatingPlanLabel}</label>
          <textarea id="f-plan" name="plan" rows="8" spellcheck="false" aria-describedby="f-plan-hint${errs.plan?.length ? ' f-plan-err' : ''}"${errs.plan?.length ? raw(' aria-invalid="true"') : ''}>${v.form.plan}</textarea>
          <p class="hint" id="f-plan-hint">${m.seatingPlanHint}</p>
          ${errorOf('plan')}
          <label for="f-plan-file" hidden data-plan-file>${m.seatingFileLabel}</label>
          <input type="file" id="f-plan-file" accept="application/json,.json" hidden data-plan-file />
        </div>
        <button type="submit" name="action" value="save">${m.seatingSave}</button>
        ${v.map ? html` <button type="submit" name="action" value="remove" class="danger" aria-describedby="remove-hint">${m.seatingRemove}</button><p class="hint" id="remove-hint">${m.seatingRemoveHint}</p>` : ''}
      </form>`
    : '';
  const body = html`${eventTabs(v.viewer, v.event.slug, 'seating')}
    ${CSS} ${drawing} ${form}
    ${write ? html`<script src="${asset('seating.js')}" defer></script>` : ''}`;
  return consolePage({ title: m.seatingTitle(v.event.name), viewer: v.viewer, active: 'events', flash: v.flash ?? null, body });
}

const CSS = raw(`<style>
.seat-frame{overflow:auto;max-height:70vh;border:1px solid #d0d4dc;border-radius:8px;background:#fff}
.seat-frame svg{display:block;width:100%;height:auto;min-width:20rem}
.seat-frame circle[data-state="a"],.seat-frame circle[data-state="b"]{cursor:pointer}
.seat-legend{list-style:none;padding:0;display:flex;flex-wrap:wrap;gap:.25rem 1rem}
.seat-legend li{display:flex;align-items:center;gap:.35rem}
#f-plan{font-family:ui-monospace,monospace;font-size:.85rem;width:100%}
#f-blocked{width:100%}
</style>`);

/** Escapes text for the drawing's attributes and titles (thousands of seats are joined as plain strings). */
function esc(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}
