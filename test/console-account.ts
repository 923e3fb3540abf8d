import type { FastifyInstance } from 'fastify';
import { expect } from 'vitest';
import type { AccountFile } from '../src/modules/events/event-document.ts';
import { ConsoleClient } from './console-client.ts';
import { makeAccountFile } from './factories.ts';

/** The password of every console test user. */
export const PW = 'a long enough password';

export type Role = NonNullable<AccountFile['users']>[number]['role'];
/** One console user per role: role -> email. */
export type People = Partial<Record<Role, string>>;

/**
 * An account file whose users are `people`, each with the role it is filed under and the test
 * password, in the order given; the rest as `makeAccountFile` makes it from `overrides`.
 */
export function makeStaffedAccountFile(people: People, overrides: Parameters<typeof makeAccountFile>[0] = {}): AccountFile {
  return makeAccountFile({
    ...overrides,
    users: Object.entries(people).map(([role, email]) => ({ email, role: role as Role, password: PW })),
  });
}

/**
 * A console client signed in as `people[role]`. Each role signs in from its own address, `net`
 * followed by the role's place in `people`, so one role's sign-ins never spend the per-address
 * budget of another's; `headers` go with every request, the sign-in's too.
 */
export async function signedInAs<R extends Role>(
  app: FastifyInstance,
  people: People & Record<R, string>,
  role: R,
  net: string,
  headers: Record<string, string> = {},
): Promise<ConsoleClient> {
  const c = new ConsoleClient(app);
  c.ip = `${net}.${Object.keys(people).indexOf(role) + 1}`;
  c.headers = headers;
  const res = await c.signIn(people[role], PW);
  expect(res.statusCode, res.body).toBe(303);
  return c;
}
