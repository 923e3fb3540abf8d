import type { FastifyReply } from 'fastify';

/**
 * Sends a body serialised once per source object. For a route whose body comes from a cached
 * row (the catalogue cache keeps one object per row until it expires), the JSON is made once
 * with the route's own response-schema serialiser and the same string is sent to every request
 * that reads that row. One memo per route: a source object can stand behind other bodies elsewhere.
 */
export function serializedOnce<K extends object>(): (
  reply: FastifyReply,
  source: K,
  body: (source: K) => unknown,
) => FastifyReply {
  const bodies = new WeakMap<K, string | Buffer | ArrayBuffer>();
  return (reply, source, body) => {
    let json = bodies.get(source);
    if (json === undefined) bodies.set(source, (json = reply.serialize(body(source))));
    return reply.type('application/json; charset=utf-8').send(json);
  };
}
