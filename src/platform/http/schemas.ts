/** JSON-schema fragments shared by route definitions. */
export const nullableString = { type: ['string', 'null'] } as const;
export const nullableInteger = { type: ['integer', 'null'] } as const;
export const timestamp = { type: 'string', format: 'date-time' } as const;
export const nullableTimestamp = { type: ['string', 'null'], format: 'date-time' } as const;

export const errorResponses = (...statuses: number[]): Record<number, { $ref: string }> =>
  Object.fromEntries(statuses.map((s) => [s, { $ref: 'Error#' }]));

export const slugParams = {
  type: 'object',
  required: ['slug'],
  properties: { slug: { type: 'string' } },
} as const;
