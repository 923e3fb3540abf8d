import type { FastifyInstance } from 'fastify';
import { getSeatsJson } from './seat-map.service.ts';
import { principalOf } from '../../platform/http/auth.ts';
import { errorResponses, nullableInteger, nullableString, slugParams } from '../../platform/http/schemas.ts';
import { serializedOnce } from '../../platform/http/serialized.ts';
import { SEAT_PLACE_REQUIRED, seatPlaceProperties } from './seating.schemas.ts';
import { eventConfigRoutes } from './event-config.routes.ts';
import {
  getEvent,
  getEvents,
  getSeries,
  getTicketTypes,
  type EventView,
  SEAT_STATUSES,
  type SeatStatus,
  type TicketTypeView,
} from './events.service.ts';

export const eventSchema = {
  $id: 'Event',
  type: 'object',
  additionalProperties: false,
  required: [
    'slug',
    'name',
    'series',
    'currency',
    'currencies',
    'timezone',
    'starts_at',
    'ends_at',
    'sales_end_at',
    'tax_mode',
    'url',
    'description',
    'venue',
    'locale',
  ],
  properties: {
    slug: { type: 'string' },
    name: { type: 'string' },
    series: { ...nullableString, description: 'series slug' },
    currency: { type: 'string', description: 'lowercase ISO 4217' },
    currencies: { type: 'array', items: { type: 'string' } },
    timezone: { type: 'string', description: 'IANA name' },
    starts_at: { type: 'string', format: 'date-time' },
    ends_at: { type: ['string', 'null'], format: 'date-time' },
    sales_end_at: { type: ['string', 'null'], format: 'date-time' },
    tax_mode: { type: 'string', enum: ['inclusive', 'exclusive'] },
    url: { type: 'string', description: 'public event page' },
    description: { ...nullableString, description: 'Markdown shown on the event page' },
    venue: {
      type: ['object', 'null'],
      additionalProperties: false,
      required: ['name', 'address', 'map_url'],
      properties: { name: { type: 'string' }, address: nullableString, map_url: nullableString },
    },
    locale: { type: 'string', description: 'default language of the buyer pages and mails' },
  },
} as const;

export const ticketTypeSchema = {
  $id: 'TicketType',
  type: 'object',
  additionalProperties: false,
  required: ['id', 'slug', 'name', 'price_cents', 'currency', 'capacity', 'max_per_order', 'on_sale', 'position'],
  properties: {
    id: { type: 'integer' },
    slug: { type: 'string' },
    name: { type: 'string' },
    price_cents: { type: 'integer' },
    currency: { type: 'string' },
    capacity: { ...nullableInteger, description: 'null: no limit' },
    max_per_order: nullableInteger,
    on_sale: { type: 'boolean' },
    position: { type: 'integer' },
  },
} as const;

const seatSchema = {
  type: 'object',
  additionalProperties: false,
  required: [...SEAT_PLACE_REQUIRED, 'category', 'ticket_type_id', 'status'],
  properties: {
    ...seatPlaceProperties,
    category: { type: 'string' },
    ticket_type_id: { ...nullableInteger, description: 'null: the category is not sold' },
    status: { type: 'string', enum: [...SEAT_STATUSES] },
  },
} as const;

const seriesSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['slug', 'name'],
  properties: { slug: { type: 'string' }, name: { type: 'string' } },
} as const;

export async function eventsRoutes(app: FastifyInstance): Promise<void> {
  app.addSchema(eventSchema);
  app.addSchema(ticketTypeSchema);
  const common = { config: { capability: 'events.view' as const } };
  // the event and its ticket types are cached rows (events.service.ts): serialised once per row
  const sendEvent = serializedOnce<EventView>();
  const sendTypes = serializedOnce<TicketTypeView[]>();
  // the management routes (contract section 6) answer with the Event and TicketType schemas above
  await app.register(eventConfigRoutes);

  app.get(
    '/events',
    {
      ...common,
      schema: {
        tags: ['events'],
        summary: 'Events, newest first',
        response: {
          200: { type: 'object', required: ['events'], properties: { events: { type: 'array', items: { $ref: 'Event#' } } } },
          ...errorResponses(401, 403, 429, 500),
        },
      },
    },
    async (request) => ({ events: await getEvents(app.ctx, principalOf(request)) }),
  );

  app.get(
    '/series',
    {
      ...common,
      schema: {
        tags: ['events'],
        summary: 'Series, by name',
        response: {
          200: { type: 'object', required: ['series'], properties: { series: { type: 'array', items: seriesSchema } } },
          ...errorResponses(401, 403, 429, 500),
        },
      },
    },
    async (request) => ({ series: await getSeries(app.ctx, principalOf(request)) }),
  );

  app.get<{ Params: { slug: string } }>(
    '/events/:slug',
    {
      ...common,
      schema: {
        tags: ['events'],
        summary: 'One event',
        params: slugParams,
        response: { 200: { $ref: 'Event#' }, ...errorResponses(401, 403, 404, 429, 500) },
      },
    },
    async (request, reply) => sendEvent(reply, await getEvent(app.ctx, principalOf(request), request.params.slug), (e) => e),
  );

  app.get<{ Params: { slug: string } }>(
    '/events/:slug/ticket-types',
    {
      ...common,
      schema: {
        tags: ['events'],
        summary: 'Ticket types in display order, archived excluded; [] for an unknown event',
        params: slugParams,
        response: {
          200: {
            type: 'object',
            required: ['ticket_types'],
            properties: { ticket_types: { type: 'array', items: { $ref: 'TicketType#' } } },
          },
          ...errorResponses(401, 403, 429, 500),
        },
      },
    },
    async (request, reply) =>
      sendTypes(reply, await getTicketTypes(app.ctx, principalOf(request), request.params.slug), (types) => ({
        ticket_types: types,
      })),
  );

  app.get<{ Params: { slug: string }; Querystring: { status?: SeatStatus } }>(
    '/events/:slug/seats',
    {
      ...common,
      schema: {
        tags: ['events'],
        summary: "The seats of the event's plan in plan order, with their state; [] when it has no plan",
        params: slugParams,
        querystring: {
          type: 'object',
          additionalProperties: false,
          properties: { status: { type: 'string', enum: [...SEAT_STATUSES] } },
        },
        response: {
          200: {
            type: 'object',
            required: ['seats'],
            properties: { seats: { type: 'array', items: seatSchema } },
          },
          ...errorResponses(400, 401, 403, 404, 429, 500),
        },
      },
    },
    // the answer is JSON text built by the database (seat-map.repo.ts): sent as it is
    async (request, reply) =>
      reply
        .type('application/json; charset=utf-8')
        .send(await getSeatsJson(app.ctx, principalOf(request), request.params.slug, request.query.status)),
  );
}
