import Fastify from 'fastify';

/** The reads baseline: a bare Fastify route answering the same JSON from memory. */
const [port, event, types] = [Number(process.argv[2]), process.argv[3] ?? '{}', process.argv[4] ?? '{}'];
const app = Fastify();
app.get('/event', async (_req, reply) => reply.type('application/json').send(event));
app.get('/types', async (_req, reply) => reply.type('application/json').send(types));
app.get('/healthz', async () => ({ ok: true }));
await app.listen({ port, host: '127.0.0.1' });
