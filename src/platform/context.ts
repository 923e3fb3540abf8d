import type { Logger } from 'pino';
import type { Clock } from './clock.ts';
import type { Config } from './config.ts';
import type { Db } from './db/database.ts';

/** What every service needs from the platform. Built once per process in server.ts / tests. */
export interface AppContext {
  config: Config;
  db: Db;
  engine: 'postgres' | 'pglite';
  clock: Clock;
  log: Logger;
}
