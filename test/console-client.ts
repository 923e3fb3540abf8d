import type { FastifyInstance } from 'fastify';

export const form = (data: Record<string, string | string[]>) =>
  Object.entries(data)
    .flatMap(([k, v]) => (Array.isArray(v) ? v : [v]).map((x) => `${encodeURIComponent(k)}=${encodeURIComponent(x)}`))
    .join('&');
export const csrfIn = (body: string) => /name="csrf" value="([^"]+)"/.exec(body)?.[1] ?? '';
export const cookieOf = (res: { headers: Record<string, unknown> }) => {
  const raw = res.headers['set-cookie'];
  const line = Array.isArray(raw) ? raw[0] : String(raw ?? '');
  return /admit_session=([^;]*)/.exec(line)?.[1] ?? '';
};

/** A browser-like client: keeps the session cookie, reads each page's CSRF token. */
export class ConsoleClient {
  cookie = '';
  csrf = '';
  ip = '10.0.0.1';
  /** sent with every request, as a browser would (Accept-Language, say) */
  headers: Record<string, string> = {};
  constructor(private readonly app: FastifyInstance) {}

  async get(url: string) {
    const res = await this.app.inject({
      method: 'GET',
      url,
      headers: { ...this.headers, cookie: `admit_session=${this.cookie}` },
      remoteAddress: this.ip,
    });
    const token = csrfIn(res.body);
    if (token) this.csrf = token;
    return res;
  }
  async post(url: string, data: Record<string, string | string[]>, opts: { csrf?: boolean } = {}) {
    const body = opts.csrf === false ? data : { csrf: this.csrf, ...data };
    const res = await this.app.inject({
      method: 'POST',
      url,
      headers: { ...this.headers, cookie: `admit_session=${this.cookie}`, 'content-type': 'application/x-www-form-urlencoded' },
      payload: form(body),
      remoteAddress: this.ip,
    });
    const c = cookieOf(res);
    if (res.headers['set-cookie']) this.cookie = c;
    return res;
  }
  async signIn(email: string, password: string) {
    await this.get('/console/sign-in');
    return this.post('/console/sign-in', { email, password, next: '/console' });
  }
}
