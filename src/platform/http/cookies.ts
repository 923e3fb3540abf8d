import type { FastifyReply, FastifyRequest } from 'fastify';

/** Cookies without a plugin: the few admit sets are read and written here. */

export function readCookie(request: FastifyRequest, name: string): string | undefined {
  const header = request.headers.cookie;
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const i = part.indexOf('=');
    if (i > 0 && part.slice(0, i).trim() === name) return decodeURIComponent(part.slice(i + 1).trim());
  }
  return undefined;
}

/** Adds a Set-Cookie (HttpOnly, SameSite=Lax, Secure when the base URL is https) beside any already set. */
export function addCookie(
  reply: FastifyReply,
  baseUrl: string,
  name: string,
  value: string,
  opts: { path: string; maxAgeSeconds?: number },
): void {
  const secure = baseUrl.startsWith('https:') ? '; Secure' : '';
  const age = opts.maxAgeSeconds === undefined ? '' : `; Max-Age=${opts.maxAgeSeconds}`;
  const cookie = `${name}=${encodeURIComponent(value)}; Path=${opts.path}${age}; HttpOnly; SameSite=Lax${secure}`;
  const before = reply.getHeader('set-cookie');
  const all = before === undefined ? [] : Array.isArray(before) ? before.map(String) : [String(before)];
  void reply.header('set-cookie', [...all, cookie]);
}
