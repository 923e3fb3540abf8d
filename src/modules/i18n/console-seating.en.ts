/** The console's seating page in English: the plan, its categories' ticket types, blocked seats, the sold map. */
export const consoleSeatingEn = {
  tabSeating: 'Seating',
  seatingTitle: (event: string) => `Seating: ${event}`,
  seatingNone: 'This event sells no seats yet. Paste a seating plan below to sell seats instead of places.',
  seatingPlanHeading: 'The hall',
  seatingCounts: (available: number, held: number, sold: number, blocked: number) =>
    `${available} available, ${held} held by orders being paid, ${sold} sold, ${blocked} kept off sale`,
  seatingMapHint:
    'Click a free seat to keep it off sale (a wheelchair space, the sound desk), click it again to sell it. Held and sold seats cannot be blocked.',
  seatAvailable: 'Available',
  seatHeld: 'Held',
  seatSold: 'Sold',
  seatBlocked: 'Kept off sale',
  seatingCategoriesHeading: 'Which ticket each category sells',
  seatingNotForSale: 'Not for sale',
  seatingBlockedLabel: 'Seats kept off sale',
  seatingBlockedHint: 'Seat ids, separated by commas or spaces. The plan above fills this in as you click.',
  seatingPlanLabel: 'Seating plan (JSON)',
  seatingPlanHint:
    "pretix's seating-plan format, as its plan editor exports it: zones, rows, seats with seat_guid, number, position and category.",
  seatingFileLabel: 'Or choose the exported file',
  seatingSave: 'Save seating',
  seatingRemove: 'Stop selling seats',
  seatingRemoveHint: 'Only while no order holds a seat.',
  seatingSaved: 'Seating saved.',
  seatingRemoved: 'The event sells no seats now.',
  seatingStale: 'Someone else changed the event meanwhile: here it is as it is now. Please make your change again.',
  seatingBadJson: 'This is not JSON: check the pasted plan.',
  seatingRefused: 'Not saved',
  seatingSeatCount: (n: number) => `${n} ${n === 1 ? 'seat' : 'seats'}`,
};

export type ConsoleSeating = typeof consoleSeatingEn;
