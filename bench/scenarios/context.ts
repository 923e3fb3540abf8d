import type pg from 'pg';

/** One line of the printed table: admit's figure next to a baseline measured in the same run. */
export interface Row {
  scenario: string;
  figure: string;
  admit: number;
  baseline: number;
  baselineName: string;
  ratio: number;
  note?: string;
}

/** An event of the seeded accounts and its (first) ticket type. */
export interface EventIds {
  eventId: number;
  accountId: number;
  typeId: number;
}

/** The big event's orders, seeded once, and how long seeding took. */
export interface BigSeed {
  big: EventIds;
  seconds: number;
}

/**
 * What a scenario gets from the run: the seeded database and the started server, the run's
 * settings, and where its figures go. Each scenario is `(c: ScenarioContext) => Promise<void>`.
 */
export interface ScenarioContext {
  /** the bench database's URL (baselines and seeding connect to it themselves) */
  url: string;
  /** the server's base URL, http://127.0.0.1:<port> */
  base: string;
  /** the server's process id, for reading its CPU time and memory from /proc */
  serverPid: () => number;
  /** stops the server and starts a new process on the same port: nothing cached in it (the platform scenario's cold figures) */
  restartServer: () => Promise<void>;
  /** a small pool on the bench database, for plain-SQL baselines and checks */
  pool: pg.Pool;
  q: <T>(text: string, params?: unknown[]) => Promise<T[]>;
  /** an event's ids by its slug */
  ids: (slug: string) => Promise<EventIds>;
  /** the bench account's API headers (all capabilities) */
  headers: { authorization: string; 'content-type': string };
  /** API tokens of the second account (webhooks) and the third (the door) */
  tokens: { hook: string; door: string };
  /** the bench account's console owner */
  consoleUser: { email: string; password: string };
  quick: boolean;
  /** seconds of each timed load */
  duration: number;
  /** how many orders the big event is seeded with */
  bigOrders: number;
  /**
   * Seeds the big event's orders on the first call; every later call, from any scenario, gets
   * the same promise, so the scenarios that read them seed once between them.
   */
  seedBig: () => Promise<BigSeed>;
  /** p50 and p99 of `n` sequential calls (fewer on a quick run) */
  time: (fn: () => Promise<unknown>, n?: number) => Promise<{ p50: number; p99: number }>;
  /** records a row of the table */
  add: (r: Omit<Row, 'ratio'>) => void;
}
