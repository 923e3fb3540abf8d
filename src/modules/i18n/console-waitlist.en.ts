/** The console's waiting list page in English: who waits, the offers made, offer now and remove. */
export const consoleWaitlistEn = {
  wlWaiting: 'Waiting',
  wlOffered: 'Offered',
  wlAccepted: 'Accepted',
  wlExpired: 'Expired',
  wlRemoved: 'Removed',
  wlOn: (minutes: string) =>
    `The waiting list is on: a sold-out ticket type offers to join it, and units that come free are offered to the first in line who fits, holding them ${minutes} minutes for payment.`,
  /** around the setting's name, shown as code: "… (its configuration's waiting_list). Entries below stay." */
  wlOffBefore: "The waiting list is off for this event (its configuration's",
  wlOffAfter: '). Entries below stay.',
  wlExportCsv: 'Export CSV',
  wlCaption: 'Waiting list, in order of joining',
  wlPlace: 'Place',
  wlQty: 'Qty',
  wlJoined: 'Joined',
  wlOrder: 'order',
  wlUntil: (at: string) => `until ${at}`,
  wlOfferNow: 'Offer now',
  wlOfferNowTo: (name: string) => `Offer now to ${name}`,
  wlRemove: 'Remove',
  wlRemoveNamed: (name: string) => `Remove ${name}`,
  wlNobody: 'Nobody is on the waiting list.',
  wlTitle: (event: string) => `${event}: waiting list`,
  // after a form
  wlDoneOffered: 'Offered: the order holds the units and the pay link is on its way.',
  wlDoneRemoved: 'Removed from the waiting list.',
  // the waiting list's refusals (plain-words.ts)
  wlPwNothingToOffer: 'Not enough units are free for this entry now, or it is not waiting.',
  wlPwClosed: (status: string) => `The entry is ${status}: only a waiting or offered entry can be removed.`,
  wlPwOff: "This event's waiting list is not enabled.",
};

export type ConsoleWaitlist = typeof consoleWaitlistEn;
