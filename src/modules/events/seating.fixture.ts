/*
 * Seating plans for tests and the bench, in pretix's seating-plan format as its editor exports it:
 * zones with uuids and areas, rows with label templates, seats with radii; properties admit does
 * not read are there on purpose, to show they are kept.
 */

/** A small theatre: Stalls rows A-F of 12 seats, a Balcony row of 8 (one category each), a stage area. */
export function theatrePlan(): Record<string, unknown> {
  const rows = 'ABCDEF'.split('').map((letter, r) => ({
    uuid: `row-${letter}`,
    row_number: letter,
    row_label: 'Row %s',
    seat_label: null,
    position: { x: 40, y: 80 + r * 34 },
    seats: Array.from({ length: 12 }, (_, s) => ({
      seat_guid: `stalls-${letter}-${s + 1}`,
      uuid: `u-stalls-${letter}-${s + 1}`,
      seat_number: String(s + 1),
      position: { x: s * 32, y: 0 },
      category: 'Stalls',
      radius: 12,
    })),
  }));
  return {
    name: 'Small theatre',
    categories: [
      { name: 'Stalls', color: '#2f6fb0' },
      { name: 'Balcony', color: '#a14d8b' },
    ],
    zones: [
      {
        name: 'Stalls',
        uuid: 'zone-stalls',
        position: { x: 0, y: 0 },
        rows,
        areas: [
          {
            uuid: 'stage',
            shape: 'rectangle',
            color: '#dddddd',
            border_color: '#888888',
            position: { x: 40, y: 10 },
            rectangle: { width: 370, height: 40 },
            rotation: 0,
            text: { text: 'Stage', color: '#333333', size: 16 },
          },
        ],
      },
      {
        name: 'Balcony',
        uuid: 'zone-balcony',
        position: { x: 0, y: 300 },
        rows: [
          {
            row_number: '1',
            position: { x: 104, y: 0 },
            seats: Array.from({ length: 8 }, (_, s) => ({
              seat_guid: `balcony-1-${s + 1}`,
              seat_number: String(s + 1),
              position: { x: s * 32, y: 0 },
              category: 'Balcony',
            })),
          },
        ],
        areas: [],
      },
    ],
    size: { width: 450, height: 360 },
  };
}

/** A hall of `rows` rows of `perRow` seats, one category, in plan order row after row. */
export function hallPlan(rows: number, perRow: number, category = 'Hall'): Record<string, unknown> {
  return {
    name: `Hall of ${rows * perRow}`,
    categories: [{ name: category, color: '#2f6fb0' }],
    zones: [
      {
        name: 'Hall',
        position: { x: 0, y: 0 },
        rows: Array.from({ length: rows }, (_, r) => ({
          row_number: String(r + 1),
          position: { x: 0, y: r * 30 },
          seats: Array.from({ length: perRow }, (_, s) => ({
            seat_guid: `h-${r + 1}-${s + 1}`,
            seat_number: String(s + 1),
            position: { x: s * 30, y: 0 },
            category,
          })),
        })),
      },
    ],
    size: { width: perRow * 30, height: rows * 30 },
  };
}
