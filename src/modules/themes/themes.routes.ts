import type { FastifyInstance } from 'fastify';
import { principalOf } from '../../platform/http/auth.ts';
import { errorResponses, timestamp } from '../../platform/http/schemas.ts';
import { emptyJsonIsNoBody } from '../../platform/http/lenient-json.ts';
import { paginationMetaSchema, pagingQuerySchema } from '../../platform/db/paging.ts';
import { CALCULATED_KEYS, COLOR_KEYS, SETTABLE_KEYS } from './theme-settings.ts';
import {
  createTheme,
  deleteTheme,
  duplicateTheme,
  getTheme,
  getThemeOptions,
  getThemes,
  patchTheme,
  type ThemeBody,
} from './themes.service.ts';

const color = { type: 'string', description: 'hex colour' } as const;
const settingTypes: Record<string, object> = {
  heading_typeface: { type: 'string' },
  body_typeface: { type: 'string' },
  card_border_radius_px: { type: 'integer', minimum: 0, maximum: 64 },
  button_border_radius_px: { type: 'integer', minimum: 0, maximum: 64 },
  card_shadow_preset: { type: 'string' },
  background_source: { type: 'string' },
  default_web_html_template_id: { type: ['integer', 'null'] },
  default_email_html_template_id: { type: ['integer', 'null'] },
  default_attendee_hub_html_template_id: { type: ['integer', 'null'] },
  hide_powered_by: { type: 'boolean', description: 'honoured only on plans that allow it' },
  locale: { type: 'string', description: 'page language' },
};
const settingsSchema = {
  type: 'object',
  additionalProperties: false,
  properties: Object.fromEntries([
    ...SETTABLE_KEYS.map((k) => [k, (COLOR_KEYS as readonly string[]).includes(k) ? color : settingTypes[k]!]),
    ...CALCULATED_KEYS.map((k) => [k, { ...color, description: 'calculated, read-only' }]),
  ]),
};

const themeSchema = {
  $id: 'Theme',
  type: 'object',
  additionalProperties: false,
  required: ['id', 'name', 'is_default', 'logo_url', 'banner_url', 'background_url', 'settings', 'created_at', 'updated_at'],
  properties: {
    id: { type: 'integer' },
    name: { type: 'string' },
    is_default: { type: 'boolean' },
    logo_url: { type: ['string', 'null'] },
    banner_url: { type: ['string', 'null'] },
    background_url: { type: ['string', 'null'] },
    settings: settingsSchema,
    created_at: timestamp,
    updated_at: timestamp,
  },
} as const;

const themeListItem = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'name', 'is_default', 'created_at', 'updated_at'],
  properties: {
    id: { type: 'integer' },
    name: { type: 'string' },
    is_default: { type: 'boolean' },
    created_at: timestamp,
    updated_at: timestamp,
  },
} as const;

const imageUrl = {
  anyOf: [{ type: 'string', maxLength: 2000 }, { type: 'null' }],
  description: 'public http(s) URL of a PNG, JPEG, GIF or WebP image to fetch and attach; null detaches',
} as const;
const body = (required: string[]) => ({
  type: 'object',
  additionalProperties: false,
  required,
  properties: {
    name: { type: 'string', maxLength: 1000 },
    is_default: { type: 'boolean', description: "make this the account's default theme" },
    settings: {
      type: 'object',
      description: 'keys of the theme settings; merged on update; null resets a key to its default',
    },
    logo_url: imageUrl,
    banner_url: imageUrl,
    background_url: imageUrl,
  },
});

const accountParams = {
  type: 'object',
  required: ['account'],
  properties: { account: { type: 'string', maxLength: 200 } },
} as const;
const idParams = {
  type: 'object',
  required: ['account', 'id'],
  properties: { account: { type: 'string', maxLength: 200 }, id: { type: 'string', maxLength: 40 } },
} as const;
const one = { type: 'object', required: ['theme'], properties: { theme: { $ref: 'Theme#' } } } as const;
const tags = ['themes'];
const writeConfig = { validationError: { status: 422 as const, code: 'validation_failed' } };

const idName = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'name'],
  properties: { id: { type: 'integer' }, name: { type: 'string' } },
} as const;
const optionsSchema = {
  type: 'object',
  additionalProperties: false,
  required: [
    'colors',
    'typefaces',
    'typeface_defaults',
    'card_shadow_presets',
    'card_shadow_default',
    'border_radius',
    'background_sources',
    'background_source_default',
    'html_template_kinds',
    'reserved_component_names',
    'web_html_templates',
    'email_html_templates',
    'locales',
    'hide_powered_by_allowed',
  ],
  properties: {
    colors: { type: 'array', items: { type: 'string' }, description: 'the settable colour keys' },
    typefaces: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['key', 'name', 'font_stack'],
        properties: { key: { type: 'string' }, name: { type: 'string' }, font_stack: { type: 'string' } },
      },
    },
    typeface_defaults: {
      type: 'object',
      additionalProperties: false,
      required: ['heading_typeface', 'body_typeface'],
      properties: { heading_typeface: { type: 'string' }, body_typeface: { type: 'string' } },
    },
    card_shadow_presets: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['key', 'name', 'box_shadow'],
        properties: { key: { type: 'string' }, name: { type: 'string' }, box_shadow: { type: 'string' } },
      },
    },
    card_shadow_default: { type: 'string' },
    border_radius: {
      type: 'object',
      additionalProperties: false,
      required: ['min', 'max'],
      properties: { min: { type: 'integer' }, max: { type: 'integer' } },
    },
    background_sources: { type: 'array', items: { type: 'string' } },
    background_source_default: { type: 'string' },
    html_template_kinds: { type: 'array', items: { type: 'string' } },
    reserved_component_names: { type: 'array', items: { type: 'string' } },
    web_html_templates: { type: 'array', items: idName },
    email_html_templates: { type: 'array', items: idName },
    locales: { type: 'array', items: { type: 'string' } },
    hide_powered_by_allowed: { type: 'boolean' },
  },
} as const;

export async function themesRoutes(app: FastifyInstance): Promise<void> {
  app.addSchema(themeSchema);
  emptyJsonIsNoBody(app);

  app.get('/:account/themes', {
    schema: {
      tags,
      summary: "The account's themes (list form)",
      params: accountParams,
      querystring: pagingQuerySchema,
      response: {
        200: {
          type: 'object',
          required: ['themes', 'meta'],
          properties: { themes: { type: 'array', items: themeListItem }, meta: paginationMetaSchema },
        },
        ...errorResponses(401, 404, 429, 500),
      },
    },
    handler: async (request) => getThemes(app.ctx, principalOf(request), request.query as object),
  });

  app.post('/:account/themes', {
    config: writeConfig,
    schema: {
      tags,
      summary: 'Create a theme',
      params: accountParams,
      body: body(['name']),
      response: { 200: one, ...errorResponses(401, 403, 404, 422, 429, 500) },
    },
    handler: async (request) => createTheme(app.ctx, principalOf(request), request.body as ThemeBody),
  });

  app.get('/:account/themes/options', {
    schema: {
      tags,
      summary: 'The option space of theme settings',
      params: accountParams,
      response: { 200: optionsSchema, ...errorResponses(401, 404, 429, 500) },
    },
    handler: async (request) => getThemeOptions(app.ctx, principalOf(request)),
  });

  app.get('/:account/themes/:id', {
    schema: {
      tags,
      summary: 'One theme with full settings, calculated colours included',
      params: idParams,
      response: { 200: one, ...errorResponses(401, 404, 429, 500) },
    },
    handler: async (request) => getTheme(app.ctx, principalOf(request), (request.params as { id: string }).id),
  });

  app.patch('/:account/themes/:id', {
    config: writeConfig,
    schema: {
      tags,
      summary: 'Update a theme (settings are merged)',
      params: idParams,
      body: body([]),
      response: { 200: one, ...errorResponses(401, 403, 404, 422, 429, 500) },
    },
    handler: async (request) =>
      patchTheme(app.ctx, principalOf(request), (request.params as { id: string }).id, request.body as ThemeBody),
  });

  app.delete('/:account/themes/:id', {
    schema: {
      tags,
      summary: 'Soft-delete a theme (answers 204 with no body)',
      params: idParams,
      response: { 204: { type: 'null', description: 'deleted' }, ...errorResponses(401, 403, 404, 429, 500) },
    },
    handler: async (request, reply) => {
      await deleteTheme(app.ctx, principalOf(request), (request.params as { id: string }).id);
      return reply.code(204).send();
    },
  });

  app.post('/:account/themes/:id/duplicate', {
    schema: {
      tags,
      summary: "Duplicate a theme: name + ' copy', settings and images",
      params: idParams,
      response: { 200: one, ...errorResponses(401, 403, 404, 429, 500) },
    },
    handler: async (request) => duplicateTheme(app.ctx, principalOf(request), (request.params as { id: string }).id),
  });
}
