import type { ConsoleSeating } from './console-seating.en.ts';

/** Die Saalplan-Seite der Konsole auf Deutsch. */
export const consoleSeatingDe: ConsoleSeating = {
  tabSeating: 'Saalplan',
  seatingTitle: (event) => `Saalplan: ${event}`,
  seatingNone:
    'Diese Veranstaltung verkauft noch keine Plätze. Fügen Sie unten einen Saalplan ein, um Sitzplätze statt Kontingente zu verkaufen.',
  seatingPlanHeading: 'Der Saal',
  seatingCounts: (available, held, sold, blocked) =>
    `${available} frei, ${held} von Bestellungen in Zahlung gehalten, ${sold} verkauft, ${blocked} gesperrt`,
  seatingMapHint:
    'Klicken Sie auf einen freien Platz, um ihn zu sperren (Rollstuhlplatz, Tonpult), und erneut, um ihn freizugeben. Gehaltene und verkaufte Plätze lassen sich nicht sperren.',
  seatAvailable: 'Frei',
  seatHeld: 'Gehalten',
  seatSold: 'Verkauft',
  seatBlocked: 'Gesperrt',
  seatingCategoriesHeading: 'Welches Ticket jede Kategorie verkauft',
  seatingNotForSale: 'Nicht im Verkauf',
  seatingBlockedLabel: 'Gesperrte Plätze',
  seatingBlockedHint: 'Platz-IDs, durch Kommas oder Leerzeichen getrennt. Der Plan oben füllt das Feld beim Klicken aus.',
  seatingPlanLabel: 'Saalplan (JSON)',
  seatingPlanHint:
    'Das Saalplan-Format von pretix, wie sein Plan-Editor es exportiert: Bereiche, Reihen, Plätze mit seat_guid, Nummer, Position und Kategorie.',
  seatingFileLabel: 'Oder die exportierte Datei wählen',
  seatingSave: 'Saalplan speichern',
  seatingRemove: 'Keine Plätze mehr verkaufen',
  seatingRemoveHint: 'Nur solange keine Bestellung einen Platz hält.',
  seatingSaved: 'Saalplan gespeichert.',
  seatingRemoved: 'Die Veranstaltung verkauft jetzt keine Plätze mehr.',
  seatingStale:
    'Jemand anderes hat die Veranstaltung inzwischen geändert: Hier ist sie, wie sie jetzt ist. Bitte nehmen Sie Ihre Änderung erneut vor.',
  seatingBadJson: 'Das ist kein JSON: Bitte prüfen Sie den eingefügten Plan.',
  seatingRefused: 'Nicht gespeichert',
  seatingSeatCount: (n) => `${n} ${n === 1 ? 'Platz' : 'Plätze'}`,
};
