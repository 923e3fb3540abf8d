import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { sql } from 'kysely';
import { AppError, notFound } from '../../platform/errors.ts';
import { html, raw, type SafeHtml } from '../../platform/http/html.ts';
import { formatMoney } from '../../platform/money.ts';
import { createCodes } from '../discounts/discounts.service.ts';
import { duplicateEvent, getEventConfig, putEventConfig, type EventDocument } from '../events/event-config.service.ts';
import {
  fieldText,
  fromLocalInput,
  itemErrors,
  KINDS,
  kindOf,
  listOf,
  localInput,
  readItem,
  type KindSpec,
} from './catalogue-form.ts';
import { can, checkForm, formList, requireRole, viewerOf, type Viewer, CONSOLE_FORM, CONSOLE_PAGE } from './console.http.ts';
import { send, see } from './console.http.ts';
import { eventTabs } from './event-tabs.view.ts';
import {
  checkbox,
  consolePage,
  field,
  flashOf,
  hiddenCsrf,
  select,
  type FieldErrors,
  type Flash,
} from './console-layout.view.ts';
import { dateTimeFormat } from '../../platform/time.ts';

const page = CONSOLE_PAGE;
const form = CONSOLE_FORM;

type P = { account: string; event: string };

const STALE =
  'Someone else changed this event after you opened the page, so your change was not saved. The page now shows the current version: make your change again.';

/** Fields of the event form (the document's top level) and where document errors land. */
const EVENT_FIELDS = [
  'slug',
  'name',
  'currency',
  'timezone',
  'starts_at',
  'ends_at',
  'sales_end_at',
  'locale',
  'description',
  'venue',
];

function eventErrors(fields: Record<string, string[]>): FieldErrors {
  const out: FieldErrors = {};
  for (const [path, msgs] of Object.entries(fields)) {
    const top = path.replace(/^\$\.?/, '').split(/[.[]/)[0] ?? '';
    const key =
      top === 'venue' ? (path.includes('address') ? 'venue_address' : 'venue_name') : EVENT_FIELDS.includes(top) ? top : '_';
    (out[key] ??= []).push(key === '_' ? `${path}: ${msgs.join(', ')}` : msgs.join(', '));
  }
  return out;
}

const TIMEZONES = Intl.supportedValuesOf('timeZone');
const NOT_SAVED: Flash = { kind: 'bad', text: 'Not saved: check the fields marked below.' };

export async function consoleEventsRoutes(app: FastifyInstance): Promise<void> {
  const ctx = app.ctx;
  const base = (v: Viewer) => `/console/a/${encodeURIComponent(v.account!.slug)}`;

  // ---- Events list: upcoming first (soonest first), then past ones (latest first)
  app.get<{ Params: { account: string } }>('/console/a/:account/events', page, async (request, reply) => {
    const viewer = await viewerOf(ctx, request, request.params.account);
    requireRole(viewer, 'events.read');
    const now = ctx.clock.now();
    const events = await ctx.db
      .selectFrom('events as e')
      .select(['e.id', 'e.slug', 'e.name', 'e.starts_at', 'e.timezone'])
      .select((eb) => [
        eb
          .selectFrom('item_sales as s')
          .select(sql<number>`coalesce(sum(s.sold), 0)::int`.as('n'))
          .where('s.event_id', '=', eb.ref('e.id'))
          .where('s.kind', '=', 'tickets')
          .as('sold'),
        eb
          .selectFrom('ticket_types as t')
          .select(sql<number | null>`case when bool_or(t.capacity is null) then null else sum(t.capacity)::int end`.as('c'))
          .where('t.event_id', '=', eb.ref('e.id'))
          .where('t.archived', '=', false)
          .as('capacity'),
      ])
      .where('e.account_id', '=', viewer.account!.id)
      .orderBy(sql`e.starts_at < ${now}`)
      .orderBy(sql`case when e.starts_at >= ${now} then e.starts_at end`, 'asc')
      .orderBy('e.starts_at', 'desc')
      .execute();
    const when = (at: Date | string, tz: string) =>
      dateTimeFormat('en-GB', { timeZone: tz, dateStyle: 'medium', timeStyle: 'short' }).format(new Date(at));
    return send(
      reply,
      consolePage({
        title: 'Events',
        viewer,
        active: 'events',
        flash: flashOf(request.query),
        body: html`${
          can(viewer, 'events.write')
            ? html`<p class="actions"><a class="button" href="${base(viewer)}/events/new">New event</a></p>`
            : ''
        }
          ${
            events.length
              ? html`<div class="table-wrap">
                <table>
                  <thead>
                    <tr>
                      <th scope="col">Event</th>
                      <th scope="col">Starts</th>
                      <th scope="col" class="num">Tickets sold</th>
                      <th scope="col" class="num">Capacity</th>
                    </tr>
                  </thead>
                  <tbody>
                    ${events.map(
                      (e) =>
                        html`<tr>
                          <td>
                            <a href="${base(viewer)}/events/${e.slug}">${e.name}</a>
                            <div class="muted">${e.slug}${new Date(e.starts_at) < now ? html` · <span class="pill">past</span>` : ''}</div>
                          </td>
                          <td>${when(e.starts_at, e.timezone)}</td>
                          <td class="num" data-sold="${e.slug}">${e.sold ?? 0}</td>
                          <td class="num">${e.capacity ?? '∞'}</td>
                        </tr>`,
                    )}
                  </tbody>
                </table>
              </div>`
              : html`<div class="card"><p>No events yet.</p></div>`
          }`,
      }),
    );
  });

  // ---- New event
  const eventForm = (opts: {
    viewer: Viewer;
    action: string;
    doc: Partial<EventDocument>;
    errors?: FieldErrors;
    creating: boolean;
    etag?: string;
    submit: string;
  }): SafeHtml => {
    const d = opts.doc;
    const tz = d.timezone ?? 'Europe/Berlin';
    const e = opts.errors ?? {};
    return html`<form method="post" action="${opts.action}" class="card">
      ${hiddenCsrf(opts.viewer.csrf)} ${opts.etag ? html`<input type="hidden" name="etag" value="${opts.etag}" />` : ''}
      ${e._ ? html`<div class="flash bad" role="alert">${e._.join('; ')}</div>` : ''}
      <div class="grid">
        ${
          opts.creating
            ? field({
                name: 'slug',
                label: 'Slug (in the address)',
                value: d.slug,
                errors: e,
                required: true,
                hint: 'Lowercase letters, digits and dashes.',
              })
            : ''
        }
        ${field({ name: 'name', label: 'Name', value: d.name, errors: e, required: true })}
        ${
          opts.creating
            ? field({
                name: 'currency',
                label: 'Currency',
                value: d.currency ?? 'eur',
                errors: e,
                required: true,
                hint: 'ISO code, like eur or usd.',
              })
            : ''
        }
        ${select({
          name: 'timezone',
          label: 'Timezone',
          value: tz,
          errors: e,
          options: TIMEZONES.map((z) => ({ value: z, label: z })),
        })}
        ${field({ name: 'starts_at', label: 'Starts', type: 'datetime-local', value: localInput(d.starts_at, tz), errors: e, required: true })}
        ${field({ name: 'ends_at', label: 'Ends', type: 'datetime-local', value: localInput(d.ends_at, tz), errors: e })}
        ${field({ name: 'sales_end_at', label: 'Sales end', type: 'datetime-local', value: localInput(d.sales_end_at, tz), errors: e, hint: 'Empty: when the event ends.' })}
        ${select({
          name: 'locale',
          label: 'Language of the buyer pages',
          value: d.locale ?? 'en',
          errors: e,
          options: [
            { value: 'en', label: 'English' },
            { value: 'de', label: 'Deutsch' },
          ],
        })}
        ${field({ name: 'venue_name', label: 'Venue', value: d.venue?.name, errors: e })}
        ${field({ name: 'venue_address', label: 'Venue address', value: d.venue?.address, errors: e })}
      </div>
      <div class="field">
        <label for="f-description">Description</label>
        <textarea id="f-description" name="description" rows="6" aria-describedby="f-description-hint">${d.description ?? ''}</textarea>
        <p class="hint" id="f-description-hint">Markdown: **bold**, _italic_, [links](https://example.org), lists.</p>
        ${e.description ? html`<p class="error">${e.description.join('; ')}</p>` : ''}
      </div>
      <button type="submit">${opts.submit}</button>
    </form>`;
  };

  /** The event form's values over a document; errors for what cannot be read. */
  const readEventForm = (
    form: Record<string, string>,
    doc: Partial<EventDocument>,
  ): { doc: Partial<EventDocument>; errors: FieldErrors } => {
    const errors: FieldErrors = {};
    const out: Partial<EventDocument> = { ...doc };
    const tz = form.timezone && TIMEZONES.includes(form.timezone) ? form.timezone : (doc.timezone ?? 'UTC');
    out.timezone = form.timezone ?? tz;
    if (form.slug !== undefined) out.slug = form.slug.trim();
    out.name = (form.name ?? '').trim();
    if (form.currency !== undefined) out.currency = form.currency.trim().toLowerCase();
    for (const k of ['starts_at', 'ends_at', 'sales_end_at'] as const) {
      const v = (form[k] ?? '').trim();
      if (v === '') {
        if (k === 'starts_at') errors[k] = ['is required'];
        delete out[k];
        continue;
      }
      const at = fromLocalInput(v, tz);
      if (!at) errors[k] = ['is not a date and time'];
      else out[k] = at;
    }
    out.locale = form.locale || 'en';
    const description = (form.description ?? '').replace(/\r\n/g, '\n');
    if (description.trim()) out.description = description;
    else delete out.description;
    const venueName = (form.venue_name ?? '').trim();
    const venueAddress = (form.venue_address ?? '').trim();
    if (venueName) out.venue = { ...(doc.venue ?? {}), name: venueName, ...(venueAddress ? { address: venueAddress } : {}) };
    else if (venueAddress) errors.venue_name = ['a venue with an address needs a name'];
    else delete out.venue;
    if (out.venue && !venueAddress) delete out.venue.address;
    return { doc: out, errors };
  };

  app.get<{ Params: { account: string } }>('/console/a/:account/events/new', page, async (request, reply) => {
    const viewer = await viewerOf(ctx, request, request.params.account);
    requireRole(viewer, 'events.write');
    return send(
      reply,
      consolePage({
        title: 'New event',
        viewer,
        active: 'events',
        body: eventForm({ viewer, action: `${base(viewer)}/events/new`, doc: {}, creating: true, submit: 'Create the event' }),
      }),
    );
  });

  app.post<{ Params: { account: string } }>('/console/a/:account/events/new', form, async (request, reply) => {
    const viewer = await viewerOf(ctx, request, request.params.account);
    requireRole(viewer, 'events.write');
    const form = await checkForm(ctx, request, viewer);
    const { doc, errors } = readEventForm(form, {});
    const again = (errs: FieldErrors, status: number) =>
      send(
        reply,
        consolePage({
          title: 'New event',
          viewer,
          active: 'events',
          body: eventForm({
            viewer,
            action: `${base(viewer)}/events/new`,
            doc,
            errors: errs,
            creating: true,
            submit: 'Create the event',
          }),
        }),
        status,
      );
    if (!doc.slug || !/^[a-z0-9][a-z0-9-]{0,62}$/.test(doc.slug)) errors.slug = ['use lowercase letters, digits and dashes'];
    if (Object.keys(errors).length) return again(errors, 422);
    try {
      await putEventConfig(ctx, viewer.account!.id, doc.slug!, { ...doc, ticket_types: [] }, undefined, { createOnly: true });
    } catch (err) {
      if (err instanceof AppError && err.fields) return again(eventErrors(err.fields), err.kind === 'conflict' ? 409 : 422);
      throw err;
    }
    return see(reply, `${base(viewer)}/events/${doc.slug}/ticket-types?done=event-created`);
  });

  // ---- One event: details, duplicate, and the catalogue tabs
  const tabs = eventTabs;

  const loadConfig = async (viewer: Viewer, slug: string) => {
    try {
      return await getEventConfig(ctx, viewer.account!.id, slug);
    } catch (err) {
      if (err instanceof AppError && err.kind === 'not_found') throw notFound('No such event');
      throw err;
    }
  };

  const detailsPage = async (
    request: FastifyRequest<{ Params: P }>,
    reply: FastifyReply,
    viewer: Viewer,
    opts: { doc?: Partial<EventDocument>; errors?: FieldErrors; flash?: Flash | null; status?: number } = {},
  ) => {
    const config = await loadConfig(viewer, request.params.event);
    const doc = opts.doc ?? config.document;
    const writable = can(viewer, 'events.write');
    const url = `${ctx.config.baseUrl}/e/${viewer.account!.slug}/${config.document.slug}`;
    return send(
      reply,
      consolePage({
        title: config.document.name,
        viewer,
        active: 'events',
        flash: opts.flash ?? flashOf(request.query),
        body: html`${tabs(viewer, config.document.slug, '')}
          <p>Public page: <a href="${url}">${url}</a> · ${config.document.currency.toUpperCase()}</p>
          ${
            writable
              ? html`${eventForm({
                  viewer,
                  action: `${base(viewer)}/events/${config.document.slug}`,
                  doc,
                  errors: opts.errors,
                  creating: false,
                  etag: config.etag,
                  submit: 'Save',
                })}
                <form method="post" action="${base(viewer)}/events/${config.document.slug}/duplicate" class="card">
                  <h2>Duplicate</h2>
                  <p class="muted">A new event with this configuration and no orders; every date moves with the start.</p>
                  ${hiddenCsrf(viewer.csrf)}
                  <div class="grid">
                    ${field({ name: 'slug', label: 'New slug', id: 'dup-slug', required: true, errors: opts.errors?.dup ? { slug: opts.errors.dup } : {} })}
                    ${field({ name: 'name', label: 'New name', id: 'dup-name', value: config.document.name })}
                    ${field({ name: 'starts_at', label: 'Starts', id: 'dup-starts', type: 'datetime-local', value: localInput(config.document.starts_at, config.document.timezone) })}
                  </div>
                  <button type="submit" class="secondary">Duplicate</button>
                </form>`
              : html`<div class="card">
                <p><strong>Starts</strong> ${localInput(doc.starts_at, doc.timezone ?? 'UTC').replace('T', ' ')} (${doc.timezone})</p>
                ${doc.venue ? html`<p><strong>Venue</strong> ${doc.venue.name}</p>` : ''}
              </div>`
          }`,
      }),
      opts.status ?? 200,
    );
  };

  app.get<{ Params: P }>('/console/a/:account/events/:event', page, async (request, reply) => {
    const viewer = await viewerOf(ctx, request, request.params.account);
    requireRole(viewer, 'events.read');
    return detailsPage(request, reply, viewer);
  });

  app.post<{ Params: P }>('/console/a/:account/events/:event', form, async (request, reply) => {
    const viewer = await viewerOf(ctx, request, request.params.account);
    requireRole(viewer, 'events.write');
    const form = await checkForm(ctx, request, viewer);
    const current = await loadConfig(viewer, request.params.event);
    const { doc, errors } = readEventForm(form, current.document);
    if (Object.keys(errors).length) return detailsPage(request, reply, viewer, { doc, errors, status: 422 });
    try {
      await putEventConfig(ctx, viewer.account!.id, current.document.slug, doc, form.etag ?? '');
    } catch (err) {
      if (err instanceof AppError && err.kind === 'precondition_failed') {
        return detailsPage(request, reply, viewer, { flash: { kind: 'bad', text: STALE }, status: 412 });
      }
      if (err instanceof AppError && err.fields) {
        return detailsPage(request, reply, viewer, {
          doc,
          errors: eventErrors(err.fields),
          status: err.kind === 'conflict' ? 409 : 422,
        });
      }
      throw err;
    }
    return see(reply, `${base(viewer)}/events/${current.document.slug}?done=event-saved`);
  });

  app.post<{ Params: P }>('/console/a/:account/events/:event/duplicate', form, async (request, reply) => {
    const viewer = await viewerOf(ctx, request, request.params.account);
    requireRole(viewer, 'events.write');
    const form = await checkForm(ctx, request, viewer);
    const current = await loadConfig(viewer, request.params.event);
    const slug = (form.slug ?? '').trim();
    const fail = (msg: string, status: number) =>
      detailsPage(request, reply, viewer, {
        errors: { dup: [msg] },
        flash: { kind: 'bad', text: `Not duplicated: ${msg}` },
        status,
      });
    if (!/^[a-z0-9][a-z0-9-]{0,62}$/.test(slug)) return fail('use lowercase letters, digits and dashes for the slug', 422);
    const starts = form.starts_at ? fromLocalInput(form.starts_at, current.document.timezone) : current.document.starts_at;
    if (!starts) return fail('the start is not a date and time', 422);
    try {
      await duplicateEvent(ctx, viewer.account!.id, current.document.slug, {
        slug,
        ...(form.name?.trim() ? { name: form.name.trim() } : {}),
        starts_at: starts,
      });
    } catch (err) {
      if (err instanceof AppError && (err.kind === 'conflict' || err.kind === 'unprocessable')) return fail(err.message, 409);
      throw err;
    }
    return see(reply, `${base(viewer)}/events/${slug}?done=event-duplicated`);
  });

  // ---- Catalogue tabs (one generic editor per kind)
  const catalogue = async (
    request: FastifyRequest<{ Params: P & { kind: string } }>,
    reply: FastifyReply,
    viewer: Viewer,
    kind: KindSpec,
    opts: {
      open?: string;
      values?: Record<string, string>;
      lists?: Record<string, string[]>;
      errors?: FieldErrors;
      flash?: Flash | null;
      status?: number;
    } = {},
  ) => {
    const config = await loadConfig(viewer, request.params.event);
    const doc = config.document;
    const items = listOf(doc, kind);
    const writable = can(viewer, 'events.write');
    const choices = {
      ticket_types: (doc.ticket_types ?? []).filter((t) => !t.archived).map((t) => ({ value: t.key, label: t.name })),
      audiences: (doc.audiences ?? []).map((a) => ({ value: a.key, label: a.name })),
      goods: (doc.goods ?? []).map((g) => ({ value: g.key, label: g.name })),
    };
    const action = `${base(viewer)}/events/${doc.slug}/${kind.slug}`;
    const fieldsOf = (item: Record<string, unknown>, prefix: string, creating: boolean, mine: boolean): SafeHtml => {
      const errs = mine ? (opts.errors ?? {}) : {};
      return html`${errs._ ? html`<div class="flash bad" role="alert">${errs._.join('; ')}</div>` : ''}
        <div class="grid">
          ${kind.fields
            .filter((f) => creating || !f.createOnly)
            .map((f) => {
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
                  options: [{ value: '', label: '(none)' }, ...choices[f.choices!]],
                });
              }
              if (f.type === 'keys') {
                const ticked = new Set(shown as string[]);
                return html`<fieldset class="field">
                  <legend>${f.label}</legend>
                  ${choices[f.choices!].length ? choices[f.choices!].map((c) => checkbox({ name: f.name, label: c.label, value: c.value, checked: ticked.has(c.value), id: `${id}-${c.value}` })) : html`<p class="muted">None yet.</p>`}
                  ${f.hint ? html`<p class="hint">${f.hint}</p>` : ''}
                  ${errs[f.name] ? html`<p class="error">${errs[f.name]!.join('; ')}</p>` : ''}
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
    };
    const summary = (item: Record<string, unknown>) => {
      const parts: string[] = [];
      if (typeof item.price === 'number') parts.push(formatMoney(item.price, doc.currency));
      if (typeof item.percent_off === 'number') parts.push(`${item.percent_off}% off`);
      if (typeof item.amount_off === 'number') parts.push(`${formatMoney(item.amount_off, doc.currency)} off`);
      if ('capacity' in item) parts.push(item.capacity === null ? 'no limit' : `capacity ${String(item.capacity)}`);
      if (item.on_sale === false) parts.push('not on sale');
      if (item.archived === true) parts.push('archived');
      return parts.join(' · ');
    };
    const shown = kind.id === 'code' ? items.slice(0, 200) : items;
    return send(
      reply,
      consolePage({
        title: `${doc.name}: ${kind.title.toLowerCase()}`,
        viewer,
        active: 'events',
        flash: opts.flash ?? flashOf(request.query),
        body: html`${tabs(viewer, doc.slug, kind.slug)}
          ${items.length === 0 ? html`<p class="muted">No ${kind.title.toLowerCase()} yet.</p>` : ''}
          ${shown.map((item, i) => {
            const id = String(item[kind.id]);
            const mine = opts.open === id;
            return html`<details class="item" ${mine ? raw('open') : ''}>
              <summary><strong>${String(item.name ?? id)}</strong> <span class="muted">${id}</span> <span>${summary(item)}</span>${writable ? html`<span class="edit" aria-hidden="true">Edit</span>` : ''}</summary>
              <div class="body">
                ${
                  writable
                    ? html`<form method="post" action="${action}/${encodeURIComponent(id)}">
                        ${hiddenCsrf(viewer.csrf)}<input type="hidden" name="etag" value="${config.etag}" />
                        ${fieldsOf(item, `i${i}`, false, mine)}
                        <div class="actions"><button type="submit">Save</button></div>
                      </form>
                      <form method="post" action="${action}/${encodeURIComponent(id)}/delete" class="actions" style="margin-top:.5rem">
                        ${hiddenCsrf(viewer.csrf)}<input type="hidden" name="etag" value="${config.etag}" />
                        <button type="submit" class="danger">Remove</button>
                        <span class="hint">Archived instead when orders refer to it.</span>
                      </form>`
                    : html`<p>${summary(item)}</p>`
                }
              </div>
            </details>`;
          })}
          ${items.length > shown.length ? html`<p class="muted">And ${items.length - shown.length} more (all through the API).</p>` : ''}
          ${
            writable
              ? html`<form method="post" action="${action}" class="card">
                <h2>Add a ${kind.singular}</h2>
                ${hiddenCsrf(viewer.csrf)}<input type="hidden" name="etag" value="${config.etag}" />
                ${fieldsOf({}, 'new', true, opts.open === '')}
                <button type="submit">Add</button>
              </form>`
              : ''
          }
          ${
            writable && kind.slug === 'codes'
              ? html`<form method="post" action="${action}-generate" class="card">
                <h2>Generate codes</h2>
                <p class="muted">Unique random codes, up to 10,000 at once.</p>
                ${hiddenCsrf(viewer.csrf)}
                <div class="grid">
                  ${field({ name: 'count', label: 'How many', id: 'gen-count', required: true, attrs: 'inputmode="numeric"', errors: opts.open === 'gen' ? opts.errors : {} })}
                  ${field({ name: 'prefix', label: 'Prefix', id: 'gen-prefix', errors: opts.open === 'gen' ? opts.errors : {} })}
                  ${field({ name: 'percent_off', label: 'Percent off', id: 'gen-percent', errors: opts.open === 'gen' ? opts.errors : {} })}
                  ${field({ name: 'max_uses', label: 'Uses per code', id: 'gen-uses', value: '1' })}
                </div>
                <button type="submit" class="secondary">Generate</button>
              </form>`
              : ''
          }`,
      }),
      opts.status ?? 200,
    );
  };

  const kindParam = (request: FastifyRequest<{ Params: P & { kind: string } }>) => {
    const kind = kindOf(request.params.kind);
    if (!kind) throw notFound('This page does not exist');
    return kind;
  };

  app.get<{ Params: P & { kind: string } }>('/console/a/:account/events/:event/:kind', page, async (request, reply) => {
    const viewer = await viewerOf(ctx, request, request.params.account);
    requireRole(viewer, 'events.read');
    return catalogue(request, reply, viewer, kindParam(request));
  });

  /** Saves one item (`id` null: a new one) or removes it, through the document with the page's ETag. */
  const change = async (
    request: FastifyRequest<{ Params: P & { kind: string; id?: string } }>,
    reply: FastifyReply,
    remove: boolean,
  ) => {
    const viewer = await viewerOf(ctx, request, request.params.account);
    requireRole(viewer, 'events.write');
    const kind = kindParam(request);
    const form = await checkForm(ctx, request, viewer);
    const lists = Object.fromEntries(
      kind.fields.filter((f) => f.type === 'keys').map((f) => [f.name, formList(request, f.name)]),
    );
    const config = await loadConfig(viewer, request.params.event);
    const doc = structuredClone(config.document) as unknown as Record<string, Array<Record<string, unknown>>>;
    const items = doc[kind.list] ?? [];
    const id = request.params.id;
    const index = id === undefined ? items.length : items.findIndex((it) => String(it[kind.id]) === id);
    if (index < 0) throw notFound(`No such ${kind.singular}`);
    const open = id ?? '';
    if (remove) items.splice(index, 1);
    else {
      const { item, errors } = readItem(
        kind,
        form,
        lists,
        id === undefined ? {} : items[index]!,
        config.document.currency,
        config.document.timezone,
        id === undefined,
      );
      if (Object.keys(errors).length) {
        return catalogue(request, reply, viewer, kind, { open, values: form, lists, errors, flash: NOT_SAVED, status: 422 });
      }
      if (kind.list === 'ticket_types' && id === undefined && item.position === undefined) item.position = items.length;
      items[index] = item;
    }
    doc[kind.list] = items;
    try {
      await putEventConfig(ctx, viewer.account!.id, config.document.slug, doc, form.etag ?? '');
    } catch (err) {
      if (err instanceof AppError && err.kind === 'precondition_failed') {
        return catalogue(request, reply, viewer, kind, { flash: { kind: 'bad', text: STALE }, status: 412 });
      }
      if (err instanceof AppError && err.fields) {
        const errors = itemErrors(kind, index, err.fields);
        if (remove)
          return catalogue(request, reply, viewer, kind, {
            flash: { kind: 'bad', text: err.message },
            status: err.kind === 'conflict' ? 409 : 422,
          });
        return catalogue(request, reply, viewer, kind, {
          open,
          values: form,
          lists,
          errors,
          flash: err.kind === 'conflict' ? { kind: 'bad', text: err.message } : NOT_SAVED,
          status: err.kind === 'conflict' ? 409 : 422,
        });
      }
      throw err;
    }
    return see(
      reply,
      `${base(viewer)}/events/${config.document.slug}/${kind.slug}?done=${remove ? 'removed' : id === undefined ? 'added' : 'saved'}`,
    );
  };

  app.post<{ Params: P & { kind: string } }>('/console/a/:account/events/:event/:kind', form, (request, reply) => {
    if (request.params.kind === 'codes-generate') return generate(request, reply);
    return change(request, reply, false);
  });
  app.post<{ Params: P & { kind: string; id: string } }>('/console/a/:account/events/:event/:kind/:id', form, (request, reply) =>
    change(request, reply, false),
  );
  app.post<{ Params: P & { kind: string; id: string } }>(
    '/console/a/:account/events/:event/:kind/:id/delete',
    form,
    (request, reply) => change(request, reply, true),
  );

  const generate = async (request: FastifyRequest<{ Params: P & { kind: string } }>, reply: FastifyReply) => {
    const viewer = await viewerOf(ctx, request, request.params.account);
    requireRole(viewer, 'events.write');
    const form = await checkForm(ctx, request, viewer);
    const codes = KINDS.find((k) => k.slug === 'codes')!;
    const config = await loadConfig(viewer, request.params.event);
    const event = await ctx.db
      .selectFrom('events')
      .select('id')
      .where('account_id', '=', viewer.account!.id)
      .where('slug', '=', config.document.slug)
      .executeTakeFirstOrThrow();
    const errors: FieldErrors = {};
    const count = Number(form.count);
    if (!/^\d{1,5}$/.test(form.count ?? '') || count < 1 || count > 10_000) errors.count = ['must be a number from 1 to 10,000'];
    if (!/^[A-Za-z0-9_-]{0,24}$/.test(form.prefix ?? '')) errors.prefix = ['letters, digits, - and _ only'];
    const percent = Number(form.percent_off);
    if (!/^\d{1,3}$/.test(form.percent_off ?? '') || percent < 1 || percent > 100)
      errors.percent_off = ['must be a percent from 1 to 100'];
    const uses = form.max_uses ? Number(form.max_uses) : null;
    if (form.max_uses && !/^\d{1,9}$/.test(form.max_uses)) errors.max_uses = ['must be a whole number'];
    const rerender = (errs: FieldErrors) =>
      catalogue(request as FastifyRequest<{ Params: P & { kind: string } }>, reply, viewer, codes, {
        open: 'gen',
        errors: errs,
        status: 422,
      });
    if (Object.keys(errors).length) return rerender(errors);
    await createCodes(ctx, viewer.account!.id, event.id, {
      count,
      prefix: form.prefix ?? '',
      percent_off: percent,
      max_uses: uses,
    });
    return see(reply, `${base(viewer)}/events/${config.document.slug}/codes?done=generated`);
  };
}
