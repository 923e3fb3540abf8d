/** Where a seat is, as every answer that names one says it (contract section 12). */
export const seatPlaceProperties = {
  seat_guid: { type: 'string' },
  zone: { type: 'string' },
  row: { type: 'string' },
  number: { type: 'string' },
  label: { type: 'string' },
} as const;

export const SEAT_PLACE_REQUIRED = ['seat_guid', 'zone', 'row', 'number', 'label'] as const;
