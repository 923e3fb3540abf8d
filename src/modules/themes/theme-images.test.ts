import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/app.ts';
import { makeAccountFile, seedAccount } from '../../../test/factories.ts';
import { fetchImage } from './image-fetch.ts';

// A local image server on 127.0.0.1: the only host these tests ever make the service contact.
const PNG = Buffer.concat([Buffer.from('89504e470d0a1a0a', 'hex'), Buffer.from('0000000d49484452fake-png-body')]);
const GIF = Buffer.from('GIF89a-fake-gif-body');
let hits: string[] = [];
let server: http.Server;
let origin = '';

let t: TestApp;
let acct: Awaited<ReturnType<typeof seedAccount>>;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    hits.push(req.url ?? '');
    const u = req.url ?? '';
    if (u === '/logo.png') return res.writeHead(200, { 'content-type': 'image/png' }).end(PNG);
    if (u === '/banner.gif') return res.writeHead(200, { 'content-type': 'image/gif' }).end(GIF);
    if (u === '/evil.svg') {
      return res
        .writeHead(200, { 'content-type': 'image/svg+xml' })
        .end('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>');
    }
    if (u === '/page.png') return res.writeHead(200, { 'content-type': 'image/png' }).end('<html>not an image</html>');
    if (u === '/big.png') return res.writeHead(200, { 'content-length': String(6 * 1024 * 1024) }).end();
    if (u === '/stream.png') {
      res.writeHead(200, { 'content-type': 'image/png' });
      res.write(PNG);
      const chunk = Buffer.alloc(64 * 1024);
      let sent = 0;
      const pump = () => {
        while (sent < 6 * 1024 * 1024) {
          sent += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
        res.end();
      };
      res.on('error', () => undefined);
      return pump();
    }
    if (u === '/slow.png') return void setTimeout(() => res.writeHead(200).end(PNG), 2000);
    if (u === '/to-metadata') return res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/' }).end();
    if (u === '/to-private') return res.writeHead(301, { location: 'http://10.0.0.1/logo.png' }).end();
    if (u === '/to-mapped') return res.writeHead(307, { location: 'http://[::ffff:a9fe:a9fe]/' }).end();
    if (u === '/to-file') return res.writeHead(302, { location: 'file:///etc/passwd' }).end();
    if (u === '/hop1') return res.writeHead(302, { location: '/hop2' }).end();
    if (u === '/hop2') return res.writeHead(302, { location: '/logo.png' }).end();
    if (u.startsWith('/loop')) return res.writeHead(302, { location: `/loop${Number(u.slice(5) || 0) + 1}` }).end();
    res.writeHead(404).end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  t = await createTestApp();
  acct = await seedAccount(t.ctx, makeAccountFile({ slug: 'pics' }));
});
afterAll(async () => {
  await t.close();
  await new Promise((r) => server.close(r));
});
afterEach(() => {
  delete process.env.ADMIT_ALLOW_PRIVATE_FETCH;
  hits = [];
});

const create = (payload: object) => t.call(acct.tokens.all, { method: 'POST', url: '/pics/themes', payload });
const counts = async () => ({
  themes: Number(
    (
      await t.ctx.db
        .selectFrom('themes')
        .select((eb) => eb.fn.countAll().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  ),
  images: Number(
    (
      await t.ctx.db
        .selectFrom('images')
        .select((eb) => eb.fn.countAll().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  ),
});

describe('default policy: loopback is refused before any connection', () => {
  it('the local image server sees zero requests', async () => {
    const before = await counts();
    const port = (server.address() as AddressInfo).port;
    for (const u of [
      `${origin}/logo.png`,
      `http://localhost:${port}/logo.png`,
      `http://[::1]:${port}/logo.png`,
      `http://[::ffff:127.0.0.1]:${port}/logo.png`,
      `http://0.0.0.0:${port}/logo.png`,
      `http://2130706433:${port}/logo.png`,
      `http://0x7f.1:${port}/logo.png`,
    ]) {
      const r = await create({ name: 'X', logo_url: u });
      expect(r.statusCode, u).toBe(422);
      expect(r.json().error.code).toBe('validation_failed');
      // an address typed as such is named back; a host name's addresses are not
      expect(r.json().error.fields.logo_url[0], u).toMatch(
        u.includes('localhost') ? /is not a public internet address$/ : /not allowed/,
      );
    }
    expect(hits).toEqual([]);
    expect(await counts()).toEqual(before);
  });

  it('refuses non-http schemes and URLs with credentials', async () => {
    for (const u of ['file:///etc/passwd', 'ftp://example.org/x.png', `http://user:pw@127.0.0.1/x.png`]) {
      const r = await create({ name: 'X', banner_url: u });
      expect(r.statusCode, u).toBe(422);
      expect(Object.keys(r.json().error.fields)).toEqual(['banner_url']);
    }
    expect(hits).toEqual([]);
  });
});

describe('test override ADMIT_ALLOW_PRIVATE_FETCH=1 (loopback only)', () => {
  it('fetches, stores and serves an image; duplicate copies it; null detaches', async () => {
    process.env.ADMIT_ALLOW_PRIVATE_FETCH = '1';
    const r = await create({ name: 'Pictures', logo_url: `${origin}/logo.png`, banner_url: `${origin}/hop1` });
    expect(r.statusCode).toBe(200);
    const theme = r.json().theme;
    expect(hits.sort()).toEqual(['/hop1', '/hop2', '/logo.png', '/logo.png'].sort());
    expect(theme.logo_url).toMatch(/^http:\/\/admit\.test\/_img\/\d+\/[0-9a-f]{16}$/);
    const served = await t.app.inject({ method: 'GET', url: new URL(theme.logo_url).pathname });
    expect(served.statusCode).toBe(200);
    expect(served.headers['content-type']).toBe('image/png');
    expect(served.rawPayload.equals(PNG)).toBe(true);
    // a wrong hash or id is not found
    const [, , id, hash] = new URL(theme.logo_url).pathname.split('/');
    expect((await t.app.inject({ method: 'GET', url: `/_img/${id}/${'0'.repeat(16)}` })).statusCode).toBe(404);
    expect((await t.app.inject({ method: 'GET', url: `/_img/999999/${hash}` })).statusCode).toBe(404);

    hits = [];
    const dup = (await t.call(acct.tokens.all, { method: 'POST', url: `/pics/themes/${theme.id}/duplicate` })).json().theme;
    expect(hits).toEqual([]); // copied from storage, not fetched again
    expect(dup.logo_url).not.toBe(theme.logo_url);
    expect(dup.banner_url).not.toBeNull();
    const copy = await t.app.inject({ method: 'GET', url: new URL(dup.logo_url).pathname });
    expect(copy.rawPayload.equals(PNG)).toBe(true);

    const patched = await t.call(acct.tokens.all, {
      method: 'PATCH',
      url: `/pics/themes/${theme.id}`,
      payload: { logo_url: null, background_url: `${origin}/banner.gif` },
    });
    expect(patched.statusCode).toBe(200);
    expect(patched.json().theme.logo_url).toBeNull();
    expect(patched.json().theme.banner_url).toBe(theme.banner_url);
    const bg = await t.app.inject({ method: 'GET', url: new URL(patched.json().theme.background_url).pathname });
    expect(bg.headers['content-type']).toBe('image/gif');
  });

  it('re-checks every redirect: private and metadata targets are refused without a connection', async () => {
    process.env.ADMIT_ALLOW_PRIVATE_FETCH = '1';
    const before = await counts();
    for (const [path, why] of [
      ['/to-metadata', /link-local/],
      ['/to-private', /private/],
      ['/to-mapped', /link-local/],
      ['/to-file', /http or https/],
      ['/loop', /redirects/],
    ] as const) {
      const r = await create({ name: 'X', logo_url: `${origin}${path}` });
      expect(r.statusCode, path).toBe(422);
      expect(r.json().error.fields.logo_url[0], path).toMatch(why);
    }
    // only our own server was contacted (4 hops at most for the loop)
    expect(hits.filter((h) => h.startsWith('/loop'))).toHaveLength(4);
    expect(await counts()).toEqual(before);
  });

  it('refuses what is not an allowed image, too large, or missing; a refused patch changes nothing', async () => {
    process.env.ADMIT_ALLOW_PRIVATE_FETCH = '1';
    const theme = (await create({ name: 'Stay', logo_url: `${origin}/logo.png` })).json().theme;
    const before = await counts();
    for (const [path, why] of [
      ['/evil.svg', /not a PNG/],
      ['/page.png', /not a PNG/],
      ['/big.png', /larger than/],
      ['/stream.png', /larger than/],
      ['/missing.png', /answered 404/],
    ] as const) {
      const r = await t.call(acct.tokens.all, {
        method: 'PATCH',
        url: `/pics/themes/${theme.id}`,
        payload: { name: 'Changed', settings: { accent_color: '#000000' }, logo_url: `${origin}${path}` },
      });
      expect(r.statusCode, path).toBe(422);
      expect(r.json().error.fields.logo_url[0], path).toMatch(why);
    }
    expect(await counts()).toEqual(before);
    const now = (await t.call(acct.tokens.all, { method: 'GET', url: `/pics/themes/${theme.id}` })).json().theme;
    expect(now).toEqual(theme);
    // the override still refuses private addresses
    delete process.env.ADMIT_ALLOW_PRIVATE_FETCH;
    process.env.ADMIT_ALLOW_PRIVATE_FETCH = '1';
    expect((await create({ name: 'X', logo_url: 'http://10.0.0.1/logo.png' })).json().error.fields.logo_url[0]).toMatch(
      /private/,
    );
  });

  it('gives up after the deadline', async () => {
    process.env.ADMIT_ALLOW_PRIVATE_FETCH = '1';
    const started = Date.now();
    await expect(fetchImage(`${origin}/slow.png`, { maxBytes: 1024, timeoutMs: 200, maxRedirects: 3 })).rejects.toThrow(
      /in time/,
    );
    expect(Date.now() - started).toBeLessThan(1500);
  });
});
