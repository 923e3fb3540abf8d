import { createHash } from 'node:crypto';
import { cacheOf } from '../../platform/cache.ts';
import type { AppContext } from '../../platform/context.ts';
import type { Principal } from '../../platform/http/auth.ts';
import { loadVisibleEvent } from './events.service.ts';
import { planDrawing, planVersion, seatFacts, seatGeometry, seatTakes, type SeatStatus } from './seat-map.repo.ts';

/*
 * What readers of a seating plan get (contract section 12): the API's seat list, and the buyer's
 * map (its drawing, and its seats' states as one character each). A hall's seats change only
 * with its plan version while states change with every sale, so what a version says is kept per
 * process and joined with states read fresh.
 */

/** How long the seats of a plan version are kept: only memory is at stake (the version key is never stale). */
const SEAT_FACTS_MS = 10 * 60_000;
/** What each of the two per-version caches may hold: a few big halls (a 20,000-seat plan is some megabytes). */
const SEAT_CACHE_BYTES = 32 * 1024 * 1024;

/** A plan version's seats: each one's JSON text up to its status, where each is, which are blocked. */
interface PlanSeats {
  version: string;
  texts: string[];
  index: Map<string, number>;
  blocked: boolean[];
}

/**
 * Each seat of the event as the JSON text of its list entry up to its status. At most 50 plans
 * are kept per process (a 20,000-seat hall is about 3 MB).
 */
async function seatTexts(ctx: AppContext, eventId: number): Promise<PlanSeats> {
  const seats = await seatFacts(ctx.db, eventId);
  return {
    version: seats[0]?.version ?? '',
    texts: seats.map(({ version: _v, blocked: _b, ...s }) => `${JSON.stringify(s).slice(0, -1)},"status":`),
    index: new Map(seats.map((s, i) => [s.seat_guid, i])),
    blocked: seats.map((s) => s.blocked),
  };
}

/** Every seat's state now, in plan order, with the plan version's seats; null without a plan. */
async function seatStates(ctx: AppContext, eventId: number): Promise<{ plan: PlanSeats; states: SeatStatus[] } | null> {
  for (let attempt = 0; ; attempt++) {
    const { version, takes } = await seatTakes(ctx.db, eventId, ctx.clock.now());
    if (version === null) return null;
    const plan = await cacheOf<PlanSeats>(ctx.db, 'seat-facts', SEAT_FACTS_MS, SEAT_CACHE_BYTES).get(
      `${eventId}@${version}`,
      () => seatTexts(ctx, eventId),
    );
    // a plan written between the two reads: read again rather than pair seats with others' states
    if (plan.version !== version && attempt < 2) continue;
    const states: SeatStatus[] = plan.blocked.map((b) => (b ? 'blocked' : 'available'));
    for (const [guid, held] of takes) {
      const i = plan.index.get(guid);
      if (i !== undefined && !plan.blocked[i]) states[i] = held === 'paid' ? 'sold' : 'held';
    }
    return { plan, states };
  }
}

/** How long an answer of `GET /events/{slug}/seats` is kept: it is looked up by the states it shows, so never stale. */
const SEAT_ANSWER_MS = 60_000;

/**
 * The event's seats with their state (contract section 12), as the bytes of the JSON answer;
 * `{"seats": []}` for an event without a plan. The states are read fresh every time; the answer
 * built from them (3 MB for a 20,000-seat hall: some milliseconds to join and encode) is kept by
 * the plan version and a digest of every seat's state, so a hall whose states have not changed
 * since the last read is answered with the bytes built then, and one whose states changed never is.
 */
export async function getSeatsJson(ctx: AppContext, p: Principal, slug: string, status?: SeatStatus): Promise<Buffer> {
  const event = await loadVisibleEvent(ctx, p, slug);
  const now = await seatStates(ctx, event.id);
  if (!now) return Buffer.from('{"seats":[]}');
  const { plan, states } = now;
  const digest = createHash('sha1').update(codesOf(states)).digest('base64');
  const key = `${event.id}@${plan.version}/${status ?? ''}/${digest}`;
  return cacheOf<Buffer>(ctx.db, 'seat-answers', SEAT_ANSWER_MS, SEAT_CACHE_BYTES).get(key, async () => {
    const parts: string[] = [];
    for (let i = 0; i < states.length; i++) if (!status || states[i] === status) parts.push(`${plan.texts[i]}"${states[i]}"}`);
    return Buffer.from(`{"seats":[${parts.join(',')}]}`);
  });
}

const CODE: Record<SeatStatus, string> = { available: 'a', held: 'h', sold: 's', blocked: 'b' };

/**
 * The state of every seat in plan order, one character a seat (`a` available, `h` held, `s`
 * sold, `b` blocked), with the plan version: what the buyer's map asks for while it is open
 * (20,000 seats are 20 KB, not the 3 MB of the API's list). Empty without a plan.
 */
export async function seatCodes(ctx: AppContext, eventId: number): Promise<{ version: string; codes: string }> {
  const now = await seatStates(ctx, eventId);
  return now ? { version: now.plan.version, codes: codesOf(now.states) } : { version: '', codes: '' };
}

function codesOf(states: readonly SeatStatus[]): string {
  let codes = '';
  for (const s of states) codes += CODE[s];
  return codes;
}

/** A seat as the buyer's map draws it, in plan order. */
export interface MapSeat {
  guid: string;
  x: number;
  y: number;
  r: number;
  category: string;
  typeId: number | null;
  label: string;
  /** the seat's row, counted across the plan (a new row where the zone or row number changes) */
  row: number;
}

/** The buyer's map of a plan version: its size, categories and colours, areas, and seats. */
export interface SeatMap {
  version: string;
  width: number;
  height: number;
  categories: Array<{ name: string; color: string | null }>;
  areas: Array<{ x: number; y: number; width: number; height: number; color: string | null; text: string | null }>;
  seats: MapSeat[];
}

/** The event's seat map, kept per plan version (at most 20 per process); null without a plan. */
export async function seatMap(ctx: AppContext, eventId: number): Promise<SeatMap | null> {
  const version = await planVersion(ctx.db, eventId);
  if (version === null) return null;
  return cacheOf<SeatMap | null>(ctx.db, 'seat-map', SEAT_FACTS_MS, SEAT_CACHE_BYTES).get(`${eventId}@${version}`, () =>
    drawMap(ctx, eventId),
  );
}

const num = (v: unknown, d = 0) => (typeof v === 'number' && Number.isFinite(v) ? v : d);
const str = (v: unknown) => (typeof v === 'string' && v !== '' ? v : null);
const obj = (v: unknown): Record<string, unknown> => (v && typeof v === 'object' ? (v as Record<string, unknown>) : {});

async function drawMap(ctx: AppContext, eventId: number): Promise<SeatMap | null> {
  const [drawing, seats, geometry] = await Promise.all([
    planDrawing(ctx.db, eventId),
    seatFacts(ctx.db, eventId),
    seatGeometry(ctx.db, eventId),
  ]);
  if (!drawing) return null;
  const plan = obj(drawing.plan);
  const size = obj(plan.size);
  const categories = (Array.isArray(plan.categories) ? plan.categories : []).map((c) => ({
    name: String(obj(c).name ?? ''),
    color: str(obj(c).color),
  }));
  // pretix's areas: rectangles (with their text) are drawn; other shapes are left to the plan's own editor
  const areas = (Array.isArray(plan.zones) ? plan.zones : []).flatMap((z) => {
    const zp = obj(obj(z).position);
    return (Array.isArray(obj(z).areas) ? (obj(z).areas as unknown[]) : []).flatMap((a) => {
      const area = obj(a);
      if (area.shape !== 'rectangle') return [];
      const p = obj(area.position);
      const rect = obj(area.rectangle);
      return [
        {
          x: num(zp.x) + num(p.x),
          y: num(zp.y) + num(p.y),
          width: num(rect.width),
          height: num(rect.height),
          color: str(area.color),
          text: str(obj(area.text).text),
        },
      ];
    });
  });
  let row = -1;
  let last: { zone: string; row: string } | null = null;
  const mapSeats = seats.map((s, i) => {
    if (!last || last.zone !== s.zone || last.row !== s.row) row++;
    last = { zone: s.zone, row: s.row };
    const g = geometry[i]!;
    return {
      guid: s.seat_guid,
      x: Number(g.x),
      y: Number(g.y),
      r: g.radius === null ? 10 : Number(g.radius),
      category: s.category,
      typeId: s.ticket_type_id,
      label: s.label,
      row,
    };
  });
  const width = num(size.width) || Math.max(0, ...mapSeats.map((s) => s.x + s.r)) + 10;
  const height = num(size.height) || Math.max(0, ...mapSeats.map((s) => s.y + s.r)) + 10;
  return { version: seats[0]?.version ?? '', width, height, categories, areas, seats: mapSeats };
}
