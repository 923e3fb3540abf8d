/*
 * Seating plans in pretix's seating-plan JSON format (contract section 12): checked, and read
 * into seats in plan order. Pure: no SQL. The plan is stored as given, so properties the format
 * grows later (a zone's uuid, a row's editor hints, an area's shape) are kept, not refused; only
 * what admit reads is checked.
 */

/** The event document's `seating`. */
export interface SeatingIn {
  plan: Record<string, unknown>;
  categories: Record<string, string>;
  blocked?: string[];
}

/** One seat as read from a plan, in plan order (zones, rows, seats as listed). */
export interface PlanSeat {
  seat_guid: string;
  ordinal: number;
  zone: string;
  row_number: string;
  seat_number: string;
  /** what a buyer reads: "Row F, Seat 12" (the row's and seat's labels when the plan gives them) */
  label: string;
  category: string;
  x: number;
  y: number;
  radius: number | null;
}

/** Largest plan admit takes: the seat map, best available and the plan's writer stay quick below it. */
export const MAX_SEATS = 50_000;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isNumber = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
/** pretix writes numbers as strings; a plan drawn elsewhere may write them as numbers */
const text = (v: unknown): string | null => (typeof v === 'string' ? v : isNumber(v) ? String(v) : null);

function position(v: unknown): { x: number; y: number } | null {
  if (!isObject(v) || !isNumber(v.x) || !isNumber(v.y)) return null;
  return { x: v.x, y: v.y };
}

/**
 * A label template of the plan ("Row %s") filled with the row's or seat's number; pretix's editor
 * writes a label either as a template or as the finished text.
 */
function fill(template: unknown, value: string, fallback: string): string {
  if (typeof template !== 'string' || template.trim() === '') return fallback;
  return template.includes('%s') ? template.replaceAll('%s', value) : template;
}

/**
 * The plan's seats, or the problems found, each with its JSON path below `at`. Positions are
 * absolute: a seat's position is relative to its row's, the row's to its zone's.
 */
export function readPlan(plan: unknown, at: string): { seats: PlanSeat[]; problems: string[] } {
  const problems: string[] = [];
  const seats: PlanSeat[] = [];
  if (!isObject(plan)) return { seats, problems: [`${at}: must be an object`] };
  if (plan.name !== undefined && typeof plan.name !== 'string') problems.push(`${at}.name: must be a string`);
  const categories = new Set<string>();
  if (!Array.isArray(plan.categories)) problems.push(`${at}.categories: must be a list`);
  else
    plan.categories.forEach((c, i) => {
      if (!isObject(c) || typeof c.name !== 'string' || c.name === '') problems.push(`${at}.categories[${i}].name: is required`);
      else if (categories.has(c.name)) problems.push(`${at}.categories[${i}].name: "${c.name}" is used twice`);
      else categories.add(c.name);
    });
  if (plan.size !== undefined && (!isObject(plan.size) || !isNumber(plan.size.width) || !isNumber(plan.size.height)))
    problems.push(`${at}.size: needs a width and a height`);
  if (!Array.isArray(plan.zones)) return { seats, problems: [...problems, `${at}.zones: must be a list`] };
  const guids = new Set<string>();
  plan.zones.forEach((zone, z) => {
    const zp = `${at}.zones[${z}]`;
    if (!isObject(zone)) return problems.push(`${zp}: must be an object`);
    const zonePos = zone.position === undefined ? { x: 0, y: 0 } : position(zone.position);
    if (!zonePos) problems.push(`${zp}.position: needs x and y`);
    if (zone.areas !== undefined && !Array.isArray(zone.areas)) problems.push(`${zp}.areas: must be a list`);
    if (!Array.isArray(zone.rows)) return problems.push(`${zp}.rows: must be a list`);
    const zoneName = typeof zone.name === 'string' ? zone.name : '';
    zone.rows.forEach((row, r) => {
      const rp = `${zp}.rows[${r}]`;
      if (!isObject(row)) return problems.push(`${rp}: must be an object`);
      const rowNumber = text(row.row_number);
      if (rowNumber === null) problems.push(`${rp}.row_number: is required`);
      const rowPos = row.position === undefined ? { x: 0, y: 0 } : position(row.position);
      if (!rowPos) problems.push(`${rp}.position: needs x and y`);
      if (!Array.isArray(row.seats)) return problems.push(`${rp}.seats: must be a list`);
      const rowLabel = fill(row.row_label, rowNumber ?? '', `Row ${rowNumber ?? ''}`);
      row.seats.forEach((seat, s) => {
        const sp = `${rp}.seats[${s}]`;
        if (!isObject(seat)) return problems.push(`${sp}: must be an object`);
        const guid = typeof seat.seat_guid === 'string' && seat.seat_guid !== '' ? seat.seat_guid : null;
        const number = text(seat.seat_number);
        const pos = position(seat.position);
        const category = typeof seat.category === 'string' ? seat.category : null;
        if (guid === null) problems.push(`${sp}.seat_guid: is required`);
        else if (guids.has(guid)) problems.push(`${sp}.seat_guid: "${guid}" is used twice`);
        if (number === null) problems.push(`${sp}.seat_number: is required`);
        if (!pos) problems.push(`${sp}.position: needs x and y`);
        if (category === null) problems.push(`${sp}.category: is required`);
        else if (!categories.has(category)) problems.push(`${sp}.category: no category "${category}" in the plan`);
        if (seat.radius !== undefined && !isNumber(seat.radius)) problems.push(`${sp}.radius: must be a number`);
        if (guid === null || number === null || !pos || category === null || !zonePos || !rowPos) return;
        guids.add(guid);
        seats.push({
          seat_guid: guid,
          ordinal: seats.length,
          zone: zoneName,
          row_number: rowNumber ?? '',
          seat_number: number,
          label: `${rowLabel}, ${fill(seat.seat_label, number, `Seat ${number}`)}`,
          category,
          x: zonePos.x + rowPos.x + pos.x,
          y: zonePos.y + rowPos.y + pos.y,
          radius: isNumber(seat.radius) ? seat.radius : null,
        });
      });
    });
  });
  if (seats.length > MAX_SEATS) problems.push(`${at}.zones: ${seats.length} seats; a plan can have at most ${MAX_SEATS}`);
  return { seats, problems: problems.slice(0, 50) };
}

/**
 * Checks an event's `seating` against its plan and the document's ticket types: every mapped
 * category is the plan's and maps to a type of the event, every blocked seat is the plan's, and
 * a seated type is sold by seat alone (no session to choose).
 */
export function seatingProblems(
  seating: SeatingIn,
  types: ReadonlyArray<{ key: string; requires_session?: boolean }>,
  at: string,
): string[] {
  const { seats, problems } = readPlan(seating.plan, `${at}.plan`);
  if (problems.length) return problems;
  const categories = new Set(seats.map((s) => s.category));
  const planCategories = new Set(
    (seating.plan.categories as Array<{ name: string }>).map((c) => c.name).filter((c) => typeof c === 'string'),
  );
  for (const c of categories) planCategories.add(c);
  const typeByKey = new Map(types.map((t) => [t.key, t]));
  for (const [category, key] of Object.entries(seating.categories)) {
    const p = `${at}.categories[${JSON.stringify(category)}]`;
    if (!planCategories.has(category)) problems.push(`${p}: no category "${category}" in the plan`);
    const type = typeByKey.get(key);
    if (!type) problems.push(`${p}: no ticket type "${key}" in this event`);
    else if (type.requires_session) problems.push(`${p}: the ticket type "${key}" needs a session; a seated type cannot`);
  }
  const guids = new Set(seats.map((s) => s.seat_guid));
  (seating.blocked ?? []).forEach((g, i) => {
    if (!guids.has(g)) problems.push(`${at}.blocked[${i}]: no seat "${g}" in the plan`);
  });
  return problems;
}

/** Per seated ticket type key: its number of unblocked seats (its capacity). */
export function seatCounts(seating: SeatingIn, seats: readonly PlanSeat[]): Map<string, number> {
  const blocked = new Set(seating.blocked ?? []);
  const counts = new Map<string, number>();
  for (const key of Object.values(seating.categories)) counts.set(key, 0);
  for (const s of seats) {
    const key = seating.categories[s.category];
    if (key !== undefined && !blocked.has(s.seat_guid)) counts.set(key, counts.get(key)! + 1);
  }
  return counts;
}
