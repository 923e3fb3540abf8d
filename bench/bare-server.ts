import Fastify from 'fastify';

/**
 * The reads baseline: bare Fastify routes answering the same JSON (and the event page's HTML, as
 * a string and as prepared bytes) from memory; and the flash sale's floor at few clients: POST /order parses the order request
 * and answers 201 with a real order's JSON, touching no database.
 */
const [port, event, types, page, order] = [
  Number(process.argv[2]),
  process.argv[3] ?? '{}',
  process.argv[4] ?? '{}',
  process.argv[5] ?? '',
  process.argv[6] ?? '{}',
];
// the page also as bytes encoded once: the least any server can do to send it
const pageBytes = Buffer.from(page);
const app = Fastify();
app.get('/event', async (_req, reply) => reply.type('application/json').send(event));
app.get('/types', async (_req, reply) => reply.type('application/json').send(types));
app.get('/page', async (_req, reply) => reply.type('text/html; charset=utf-8').send(page));
app.get('/page-bytes', async (_req, reply) => reply.type('text/html; charset=utf-8').send(pageBytes));
app.get('/healthz', async () => ({ ok: true }));
app.post('/order', async (_req, reply) => reply.code(201).type('application/json').send(order));
await app.listen({ port, host: '127.0.0.1' });
