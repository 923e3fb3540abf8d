import { plainGeneral, plainList } from './plain-words.ts';
import { money } from './formats.ts';
import { html, raw, type SafeHtml } from '../../platform/http/html.ts';
import type { EventConfig, EventDocument } from '../events/event-config.service.ts';
import { fieldText, listOf, type KindSpec } from './catalogue-form.ts';
import { can, type Viewer } from './console.http.ts';
import { accountBase } from './console-events.view.ts';
import {
  checkbox,
  consolePage,
  emptyState,
  field,
  hiddenCsrf,
  nextStep,
  select,
  type FieldErrors,
  type Flash,
} from './console-layout.view.ts';
import { eventTabs } from './event-tabs.view.ts';
import { t } from './console-lang.ts';
import { kindWord } from './catalogue-words.ts';

// One catalogue tab of an event (one generic editor per kind), with the codes generator on the
// discount codes tab. Template text keeps its own indentation (it is the pages' HTML), not the code's.

/** A catalogue form that could not be read. */
export const NOT_SAVED: Flash = {
  kind: 'bad',
  get text() {
    return t().notSaved;
  },
};

/**
 * A form shown again: `open` names the item it was for (`''` the new one, `gen` the codes
 * generator), with the values and lists sent and the errors.
 */
export interface CatalogueForm {
  open?: string;
  values?: Record<string, string>;
  lists?: Record<string, string[]>;
  errors?: FieldErrors;
}

type Choices = Record<'ticket_types' | 'audiences' | 'goods', Array<{ value: string; label: string }>>;

/** The fields of one item's form: the item's values, or what was sent when the form is shown again (`mine`). */
function itemFields(
  kind: KindSpec,
  doc: EventDocument,
  choices: Choices,
  opts: CatalogueForm,
  item: Record<string, unknown>,
  prefix: string,
  creating: boolean,
  mine: boolean,
  /** the event's ticket types tab, offered when a choice of them has none */
  typesHref: string,
): SafeHtml {
  const errs = mine ? (opts.errors ?? {}) : {};
  const m = t();
  return html`${errs._ ? html`<div class="flash bad" role="alert">${errs._.map(plainGeneral).join(' ')}</div>` : ''}
        <div class="grid">
          ${kind.fields
            .filter((f) => creating || !f.createOnly)
            .map((spec) => {
              // the field's words in the request's language
              const f = { ...spec, label: kindWord(spec.label), hint: kindWord(spec.hint) };
              const id = `${prefix}-${f.name}`;
              const shown =
                mine && opts.values
                  ? f.type === 'keys'
                    ? (opts.lists?.[f.name] ?? [])
                    : f.type === 'bool'
                      ? opts.values[f.name] === '1'
                      : (opts.values[f.name] ?? '')
                  : fieldText(f, item, doc.currency, doc.timezone);
              if (f.type === 'bool') return checkbox({ name: f.name, label: f.label, checked: Boolean(shown), id });
              if (f.type === 'key') {
                return select({
                  name: f.name,
                  label: f.label,
                  id,
                  value: String(shown),
                  errors: errs,
                  options: [{ value: '', label: m.none }, ...choices[f.choices!]],
                });
              }
              if (f.type === 'keys') {
                const ticked = new Set(shown as string[]);
                return html`<fieldset class="field">
                  <legend>${f.label}</legend>
                  ${choices[f.choices!].length ? choices[f.choices!].map((c) => checkbox({ name: f.name, label: c.label, value: c.value, checked: ticked.has(c.value), id: `${id}-${c.value}` })) : noChoices(f.choices!, typesHref)}
                  ${f.hint ? html`<p class="hint">${f.hint}</p>` : ''}
                  ${errs[f.name] ? html`<p class="error">${plainList(errs[f.name])}</p>` : ''}
                </fieldset>`;
              }
              return field({
                name: f.name,
                label: f.type === 'money' || f.type === 'moneynull' ? `${f.label} (${doc.currency.toUpperCase()})` : f.label,
                id,
                value: String(shown),
                type: f.type === 'datetime' ? 'datetime-local' : 'text',
                errors: errs,
                hint: f.hint,
                required: f.required,
                attrs:
                  f.type === 'money' || f.type === 'moneynull' || f.type === 'percentbp'
                    ? 'inputmode="decimal"'
                    : f.type === 'int' || f.type === 'intnull'
                      ? 'inputmode="numeric"'
                      : undefined,
              });
            })}
        </div>`;
}

/** A choice of ticket types (or audiences, goods) when there are none: said so, with where to add the first. */
function noChoices(of: keyof Choices, typesHref: string): SafeHtml {
  const m = t();
  if (of !== 'ticket_types') return html`<p class="muted">${m.noneYet}</p>`;
  return html`<p class="muted">${m.emptyNeedsTypes} <a href="${typesHref}#add">${m.emptyAddTicketType}</a></p>`;
}

/** One line about an item: price, discount (with its uses, limit and ticket types), capacity, on sale or archived. */
function summary(item: Record<string, unknown>, currency: string, extra: SummaryExtra = {}): string {
  const parts: string[] = [];
  const m = t();
  if (typeof item.price === 'number') parts.push(money(item.price, currency));
  if (typeof item.percent_off === 'number') parts.push(m.percentOffShort(String(item.percent_off)));
  if (typeof item.amount_off === 'number') parts.push(m.amountOffShort(money(item.amount_off, currency)));
  if (typeof item.code === 'string') {
    const used = extra.uses?.get(item.code) ?? 0;
    const max = typeof item.max_uses === 'number' ? item.max_uses : null;
    parts.push(max === null ? m.usedTimes(used) : m.usedOf(used, max));
    const types = Array.isArray(item.ticket_types)
      ? item.ticket_types.map((k) => extra.typeNames?.get(String(k)) ?? String(k))
      : [];
    parts.push(types.length ? m.onlyTypes(types.join(', ')) : m.everyTicketType);
  }
  if ('capacity' in item) parts.push(item.capacity === null ? m.noLimit : m.capacityOf(String(item.capacity)));
  if (item.on_sale === false) parts.push(m.notOnSale);
  if (item.archived === true) parts.push(m.archivedItem);
  return parts.join(' · ');
}

interface SummaryExtra {
  /** a discount code's uses, by code */
  uses?: Map<string, number>;
  /** ticket type names by key */
  typeNames?: Map<string, string>;
}

/** An event's catalogue tab for `kind`: its items (each an edit and a remove form for writers) and the add form. */
export function cataloguePage(
  opts: CatalogueForm & { viewer: Viewer; config: EventConfig; kind: KindSpec; flash: Flash | null; uses?: Map<string, number> },
): string {
  const { viewer, config, kind } = opts;
  const doc = config.document;
  const items = listOf(doc, kind);
  const writable = can(viewer, 'events.write');
  const choices: Choices = {
    ticket_types: (doc.ticket_types ?? []).filter((t) => !t.archived).map((t) => ({ value: t.key, label: t.name })),
    audiences: (doc.audiences ?? []).map((a) => ({ value: a.key, label: a.name })),
    goods: (doc.goods ?? []).map((g) => ({ value: g.key, label: g.name })),
  };
  const action = `${accountBase(viewer)}/events/${doc.slug}/${kind.slug}`;
  const fieldsOf = (item: Record<string, unknown>, prefix: string, creating: boolean, mine: boolean) =>
    itemFields(kind, doc, choices, opts, item, prefix, creating, mine, `${accountBase(viewer)}/events/${doc.slug}/ticket-types`);
  const shown = kind.id === 'code' ? items.slice(0, 200) : items;
  const extra: SummaryExtra = { uses: opts.uses, typeNames: new Map((doc.ticket_types ?? []).map((tt) => [tt.key, tt.name])) };
  const m = t();
  const title = kindWord(kind.title);
  const singular = kindWord(kind.singular);
  return consolePage({
    title: m.pageOfKind(doc.name, title),
    viewer,
    active: 'events',
    flash: opts.flash,
    body: html`${eventTabs(viewer, doc.slug, kind.slug)}
          ${
            items.length === 0
              ? emptyState({
                  name: kind.slug,
                  text: `${m.noItemsYet(title)} ${m.emptyKind[kind.slug] ?? ''}`.trim(),
                  next: writable ? nextStep('#add', m.addFirst(singular)) : undefined,
                })
              : ''
          }
          ${shown.map((item, i) => {
            const id = String(item[kind.id]);
            const mine = opts.open === id;
            return html`<details class="item" ${mine ? raw('open') : ''}>
              <summary><strong>${String(item.name ?? id)}</strong> <span class="muted">${id}</span> <span>${summary(item, doc.currency, extra)}</span>${writable ? html`<span class="edit" aria-hidden="true">${m.edit}</span>` : ''}</summary>
              <div class="body">
                ${
                  writable
                    ? html`<form method="post" action="${action}/${encodeURIComponent(id)}">
                        ${hiddenCsrf(viewer.csrf)}<input type="hidden" name="etag" value="${config.etag}" />
                        ${fieldsOf(item, `i${i}`, false, mine)}
                        <div class="actions"><button type="submit">${m.save}</button></div>
                      </form>
                      <form method="post" action="${action}/${encodeURIComponent(id)}/delete" class="actions" style="margin-top:.5rem">
                        ${hiddenCsrf(viewer.csrf)}<input type="hidden" name="etag" value="${config.etag}" />
                        <button type="submit" class="danger">${m.remove}</button>
                        <span class="hint">${m.archivedInstead}</span>
                      </form>`
                    : html`<p>${summary(item, doc.currency, extra)}</p>`
                }
              </div>
            </details>`;
          })}
          ${items.length > shown.length ? html`<p class="muted">${m.andMore(items.length - shown.length)}</p>` : ''}
          ${
            writable
              ? html`<form method="post" action="${action}" class="card" id="add">
                <h2>${m.addA(singular)}</h2>
                ${hiddenCsrf(viewer.csrf)}<input type="hidden" name="etag" value="${config.etag}" />
                ${fieldsOf({}, 'new', true, opts.open === '')}
                <button type="submit">${m.add}</button>
              </form>`
              : ''
          }
          ${
            writable && kind.slug === 'codes'
              ? html`<form method="post" action="${action}-generate" class="card">
                <h2>${m.generateCodes}</h2>
                <p class="muted">${m.generateIntro}</p>
                ${hiddenCsrf(viewer.csrf)}
                <div class="grid">
                  ${field({ name: 'count', label: m.howMany, id: 'gen-count', required: true, attrs: 'inputmode="numeric"', errors: opts.open === 'gen' ? opts.errors : {} })}
                  ${field({ name: 'prefix', label: m.prefix, id: 'gen-prefix', errors: opts.open === 'gen' ? opts.errors : {} })}
                  ${field({ name: 'percent_off', label: m.percentOff, id: 'gen-percent', errors: opts.open === 'gen' ? opts.errors : {} })}
                  ${field({ name: 'max_uses', label: m.usesPerCode, id: 'gen-uses', value: '1' })}
                </div>
                <button type="submit" class="secondary">${m.generate}</button>
              </form>`
              : ''
          }`,
  });
}
