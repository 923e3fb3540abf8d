/** The console's waiting list page in English: who waits, the offers made, offer now and remove. */
export const consoleWaitlistEn = {
  wlWaiting: 'Waiting',
  wlOffered: 'Offered',
  wlAccepted: 'Accepted',
  wlExpired: 'Expired',
  wlRemoved: 'Removed',
  wlOn: (minutes: string) =>
    `The waiting list is on: a sold-out ticket type offers to join it, and units that come free are offered to the first in line who fits, holding them ${minutes} minutes for payment.`,
  wlOff: 'The waiting list is off for this event: a sold-out ticket type offers no place on it. Entries below stay.',
  // its settings
  wlSettings: 'Waiting list settings',
  wlEnabledLabel: 'Offer a waiting list when a ticket type sells out',
  wlOfferMinutes: 'Minutes an offer is held for payment',
  wlOfferMinutesHint: 'From 5 to 20,160 (two weeks). Usually 1,440: a day.',
  wlOfferMinutesBad: 'must be a whole number of minutes from 5 to 20,160',
  wlSaveSettings: 'Save the settings',
  wlDoneSettings: 'The waiting list settings were saved.',
  wlSettingsRefused: 'Not saved: check the field marked below.',
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
