import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { serializedOnce } from './serialized.ts';

describe('serializedOnce', () => {
  it("serialises with the route's response schema, once per source object", async () => {
    const app = Fastify();
    const send = serializedOnce<{ name: string; secret: string }>();
    let built = 0;
    let source = { name: 'a', secret: 'never sent' };
    app.get(
      '/x',
      {
        schema: {
          response: {
            200: {
              type: 'object',
              additionalProperties: false,
              properties: { item: { type: 'object', properties: { name: { type: 'string' } } } },
            },
          },
        },
      },
      async (_req, reply) => send(reply, source, (s) => (built++, { item: s })),
    );
    const first = await app.inject('/x');
    const second = await app.inject('/x');
    expect(first.statusCode).toBe(200);
    expect(first.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(first.json()).toEqual({ item: { name: 'a' } });
    expect(second.body).toBe(first.body);
    expect(built).toBe(1);

    // a new source (the cache reloaded the row) is serialised again
    source = { name: 'b', secret: 'never sent' };
    expect((await app.inject('/x')).json()).toEqual({ item: { name: 'b' } });
    expect(built).toBe(2);
    await app.close();
  });
});
