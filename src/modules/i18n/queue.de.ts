import type { QueueMessages } from './queue.en.ts';

export const queueDe: QueueMessages = {
  queueTitle: (event) => `In der Warteschlange für ${event}`,
  waitingRoom: (when) => `Der Verkauf beginnt am ${when}.`,
  waitingRoomHint:
    'Sie sind im Warteraum. Zum Verkaufsstart erhalten alle hier einen zufälligen Platz in der Warteschlange: Früher kommen oder neu laden bringt Sie nicht nach vorn.',
  opensIn: 'Beginnt in',
  yourPlace: 'Ihr Platz in der Warteschlange',
  aheadOfYou: (n) => `${n} vor Ihnen`,
  aboutWait: (time) => `Etwa ${time} Wartezeit`,
  queueHint:
    'Lassen Sie diese Seite geöffnet: Sie aktualisiert sich selbst und bringt Sie zu den Tickets, sobald Sie an der Reihe sind.',
  queueUpdated: 'Gerade aktualisiert',
  totalWithCode: (amount) => `(${amount} Rabatt mit Ihrem Code)`,
  passNeeded:
    'Der Verkauf läuft über eine Warteschlange: Stellen Sie sich auf der Veranstaltungsseite an und kaufen Sie, wenn Sie an der Reihe sind.',
  minutes: (n) => (n === 1 ? '1 Minute' : `${n} Minuten`),
  seconds: (n) => (n === 1 ? '1 Sekunde' : `${n} Sekunden`),
};
