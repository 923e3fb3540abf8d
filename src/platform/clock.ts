/** The one source of "now". Tests swap in a fixed or movable clock. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

export class TestClock implements Clock {
  #t: number;
  constructor(start: Date | string = new Date()) {
    this.#t = new Date(start).getTime();
  }
  now(): Date {
    return new Date(this.#t);
  }
  set(t: Date | string): void {
    this.#t = new Date(t).getTime();
  }
  advance(ms: number): void {
    this.#t += ms;
  }
}
