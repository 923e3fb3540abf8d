import fc from 'fast-check';

/**
 * Generators for the fuzzers: numbers at the edges of every representation a request can
 * carry (PostgreSQL integer, 2^32, the doubles' exact integers, beyond them, fractions, numbers
 * spelled as strings), request bodies built from the OpenAPI document's schemas with those
 * numbers in every numeric field however deeply nested, and a JSON writer that can put a number
 * into the text exactly as spelled (2^53 + 1 and 1e400 have no double of their own).
 */

/** A number as written in the JSON text: values no double holds (2^53 + 1) and spellings (1e21, 1.0, -0). */
export class RawNumber {
  constructor(readonly text: string) {}
}

export const BOUNDARY_NUMBERS: readonly number[] = [
  0,
  -1,
  1,
  2,
  2 ** 31 - 1,
  2 ** 31,
  -(2 ** 31),
  2 ** 32,
  2 ** 53 - 1,
  2 ** 53,
  2 ** 53 + 2,
  -(2 ** 53),
  2 ** 63,
  1e21,
  -1e21,
  1.5,
  -1.5,
  0.1,
  1e-7,
  1e300,
  Number.MAX_VALUE,
  Number.MIN_VALUE,
];

export const RAW_NUMBERS: readonly string[] = [
  '9007199254740993',
  '-9007199254740993',
  '9223372036854775807',
  '9223372036854775808',
  '18446744073709551616',
  '123456789012345678901234567890',
  '1e21',
  '1E21',
  '1.0',
  '-0',
  '1e400',
  '-1e400',
  '2.5e-400',
];

/** Numbers written as strings: a field typed integer must refuse them, not read them. */
export const NUMBER_STRINGS: readonly string[] = [
  '0',
  '1',
  '-1',
  '2147483648',
  '9007199254740993',
  '1e21',
  '1.5',
  'NaN',
  'Infinity',
  ' 1',
  '0x10',
];

/** Any number a request may carry in a numeric field, boundaries first. */
export const numberLike: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(...BOUNDARY_NUMBERS) },
  { weight: 3, arbitrary: fc.constantFrom(...RAW_NUMBERS).map((t) => new RawNumber(t)) },
  { weight: 1, arbitrary: fc.constantFrom(...NUMBER_STRINGS) },
  { weight: 2, arbitrary: fc.integer() },
  { weight: 1, arbitrary: fc.maxSafeInteger() },
  { weight: 1, arbitrary: fc.double({ noNaN: true, noDefaultInfinity: true }) },
);

/** The same numbers as text for a path segment or query value (already safe in a URL). */
export const numberText: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(...BOUNDARY_NUMBERS).map(String),
  fc.constantFrom(...RAW_NUMBERS, ...NUMBER_STRINGS.filter((s) => !s.includes(' '))),
  fc.integer().map(String),
);

/** JSON text of a value, RawNumber leaves written as they are spelled; undefined members left out. */
export function toJson(v: unknown): string {
  if (v instanceof RawNumber) return v.text;
  if (Array.isArray(v)) return `[${v.map((x) => (x === undefined ? 'null' : toJson(x))).join(',')}]`;
  if (v !== null && typeof v === 'object') {
    const members = Object.entries(v).filter(([, x]) => x !== undefined);
    return `{${members.map(([k, x]) => `${JSON.stringify(k)}:${toJson(x)}`).join(',')}}`;
  }
  return JSON.stringify(v) ?? 'null';
}

type Schema = Record<string, unknown>;

export interface SchemaContext {
  /** the document's `#/components/schemas/...` */
  components: Record<string, Schema>;
  /** a generator to mix in for a property of this name (real ids, slugs), beside the schema's own */
  hints?: Record<string, fc.Arbitrary<unknown>>;
}

function stringFor(s: Schema): fc.Arbitrary<unknown> {
  const plain = fc.string({ maxLength: 30 });
  if (s.format === 'date-time')
    return fc.oneof(fc.constantFrom('2026-01-01T00:00:00Z', '2027-03-15T18:00:00.000Z', 'yesterday'), plain);
  if (typeof s.pattern === 'string') {
    try {
      return fc.oneof(fc.stringMatching(new RegExp(s.pattern)), plain);
    } catch {
      return plain;
    }
  }
  return plain;
}

/**
 * A generator of values for a JSON schema as the OpenAPI document gives it: objects with their
 * required properties and any of the others, arrays of a few items, every integer or number
 * field (at any depth: items[].quantity, checkins[].ticket_id) drawn from numberLike.
 */
export function fromSchema(schema: Schema, ctx: SchemaContext, name?: string, depth = 0): fc.Arbitrary<unknown> {
  if (typeof schema.$ref === 'string') {
    const target = ctx.components[schema.$ref.replace(/^#\/components\/schemas\//, '').replace(/#$/, '')];
    return target && depth < 6 ? fromSchema(target, ctx, name, depth + 1) : fc.constant({});
  }
  const hint = name ? ctx.hints?.[name] : undefined;
  const own = ownValues(schema, ctx, depth);
  return hint ? fc.oneof(hint, own) : own;
}

function ownValues(schema: Schema, ctx: SchemaContext, depth: number): fc.Arbitrary<unknown> {
  const alternatives = (schema.oneOf ?? schema.anyOf) as Schema[] | undefined;
  if (alternatives) return fc.oneof(...alternatives.map((s) => fromSchema(s, ctx, undefined, depth + 1)));
  if (Array.isArray(schema.enum)) return fc.constantFrom(...(schema.enum as unknown[]));
  const types = Array.isArray(schema.type) ? (schema.type as string[]) : typeof schema.type === 'string' ? [schema.type] : [];
  if (types.length === 0 && (schema.properties || schema.additionalProperties)) types.push('object');
  if (types.length === 0) return fc.oneof(numberLike, fc.string({ maxLength: 10 }), fc.boolean(), fc.constant(null));
  return fc.oneof(...types.map((t) => ofType(t, schema, ctx, depth)));
}

function ofType(type: string, schema: Schema, ctx: SchemaContext, depth: number): fc.Arbitrary<unknown> {
  switch (type) {
    case 'integer':
    case 'number':
      return numberLike;
    case 'string':
      return stringFor(schema);
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array': {
      const items = (schema.items as Schema | undefined) ?? {};
      const min = Math.min(Number(schema.minItems ?? 0), 2);
      return depth > 5
        ? fc.constant([])
        : fc.array(fromSchema(items, ctx, undefined, depth + 1), { minLength: min, maxLength: 4 });
    }
    default:
      return objectOf(schema, ctx, depth);
  }
}

function objectOf(schema: Schema, ctx: SchemaContext, depth: number): fc.Arbitrary<unknown> {
  if (depth > 5) return fc.constant({});
  const properties = (schema.properties ?? {}) as Record<string, Schema>;
  const keys = Object.keys(properties);
  const extra = schema.additionalProperties;
  if (keys.length === 0 && extra && typeof extra === 'object') {
    const names = fc.oneof(fc.constantFrom(...Object.keys(ctx.hints ?? {}), 'ga', 'x'), fc.string({ maxLength: 10 }));
    return fc.dictionary(names, fromSchema(extra as Schema, ctx, undefined, depth + 1), { maxKeys: 4 });
  }
  if (keys.length === 0) return fc.dictionary(fc.string({ maxLength: 10 }), numberLike, { maxKeys: 3 });
  const required = ((schema.required ?? []) as string[]).filter((k) => keys.includes(k));
  const record = Object.fromEntries(keys.map((k) => [k, fromSchema(properties[k]!, ctx, k, depth + 1)]));
  return fc.record(record, { requiredKeys: required });
}

/** Paths (property names and indexes) to the numeric leaves of a value, and to nulls under the names given. */
export function numericPaths(
  value: unknown,
  nullable: ReadonlySet<string>,
  at: Array<string | number> = [],
): Array<Array<string | number>> {
  if (typeof value === 'number') return [at];
  if (value === null) return typeof at[at.length - 1] === 'string' && nullable.has(at[at.length - 1] as string) ? [at] : [];
  if (Array.isArray(value)) return value.flatMap((v, i) => numericPaths(v, nullable, [...at, i]));
  if (typeof value === 'object')
    return Object.entries(value as object).flatMap(([k, v]) => numericPaths(v, nullable, [...at, k]));
  return [];
}

/**
 * A valid document with one to three of its numbers (or numeric nulls) replaced by numberLike
 * ones: for bodies whose schema is opaque (the event configuration document), so the numbers reach
 * the checks behind the schema instead of stopping at a malformed document.
 */
export function withNumbers(template: unknown, nullable: ReadonlySet<string>): fc.Arbitrary<unknown> {
  const paths = numericPaths(template, nullable);
  if (paths.length === 0) return fc.constant(template);
  return fc
    .tuple(fc.subarray(paths, { minLength: 1, maxLength: 3 }), fc.array(numberLike, { minLength: 3, maxLength: 3 }))
    .map(([picked, values]) => {
      const copy = structuredClone(template) as Record<string | number, unknown>;
      picked.forEach((path, i) => {
        let node = copy;
        for (const step of path.slice(0, -1)) node = node[step] as Record<string | number, unknown>;
        node[path[path.length - 1]!] = values[i];
      });
      return copy;
    });
}
