import type { ConsoleWaitlist } from './console-waitlist.en.ts';

/** Die Warteliste der Konsole auf Deutsch. */
export const consoleWaitlistDe: ConsoleWaitlist = {
  wlWaiting: 'Wartet',
  wlOffered: 'Angeboten',
  wlAccepted: 'Angenommen',
  wlExpired: 'Abgelaufen',
  wlRemoved: 'Entfernt',
  wlOn: (minutes) =>
    `Die Warteliste ist eingeschaltet: Bei einer ausverkauften Ticketart kann man sich eintragen, und frei werdende Plätze werden der ersten passenden Person in der Reihe angeboten und ${minutes} Minuten für die Zahlung reserviert.`,
  wlOff:
    'Die Warteliste ist für diese Veranstaltung ausgeschaltet: Bei einer ausverkauften Ticketart kann man sich nicht eintragen. Die Einträge unten bleiben erhalten.',
  wlSettings: 'Einstellungen der Warteliste',
  wlEnabledLabel: 'Bei ausverkaufter Ticketart eine Warteliste anbieten',
  wlOfferMinutes: 'Minuten, die ein Angebot für die Zahlung reserviert bleibt',
  wlOfferMinutesHint: 'Von 5 bis 20.160 (zwei Wochen). Üblich sind 1.440: ein Tag.',
  wlOfferMinutesBad: 'muss eine ganze Zahl von Minuten zwischen 5 und 20.160 sein',
  wlSaveSettings: 'Einstellungen speichern',
  wlDoneSettings: 'Die Einstellungen der Warteliste wurden gespeichert.',
  wlSettingsRefused: 'Nicht gespeichert: Bitte prüfen Sie das markierte Feld.',
  wlExportCsv: 'Als CSV exportieren',
  wlCaption: 'Warteliste in der Reihenfolge der Eintragung',
  wlPlace: 'Platz',
  wlQty: 'Anzahl',
  wlJoined: 'Eingetragen',
  wlOrder: 'Bestellung',
  wlUntil: (at) => `bis ${at}`,
  wlOfferNow: 'Jetzt anbieten',
  wlOfferNowTo: (name) => `${name} jetzt anbieten`,
  wlRemove: 'Entfernen',
  wlRemoveNamed: (name) => `${name} entfernen`,
  wlTitle: (event) => `${event}: Warteliste`,
  wlDoneOffered: 'Angeboten: Die Bestellung reserviert die Plätze, und der Zahlungslink ist unterwegs.',
  wlDoneRemoved: 'Von der Warteliste entfernt.',
  wlPwNothingToOffer: 'Für diesen Eintrag sind gerade nicht genug Plätze frei, oder er wartet nicht mehr.',
  wlPwClosed: (status) => `Der Eintrag ist ${status}: Nur wartende oder angebotene Einträge lassen sich entfernen.`,
  wlPwOff: 'Die Warteliste dieser Veranstaltung ist nicht eingeschaltet.',
};
