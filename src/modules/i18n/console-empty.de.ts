import type { ConsoleEmpty } from './console-empty.en.ts';

/** The console's empty lists in German (Sie): what will appear there, and the next step. */
export const consoleEmptyDe: ConsoleEmpty = {
  emptyEvents: 'Noch keine Veranstaltungen. Hier erscheinen Ihre Veranstaltungen mit verkauften Tickets und Umsatz.',
  emptyCreateFirstEvent: 'Erste Veranstaltung anlegen',
  emptyEventsAskOwner: 'Inhaber oder Manager des Kontos legen sie an.',
  emptyArchived:
    'Keine archivierten Veranstaltungen. Eine archivierte Veranstaltung verschwindet aus den Listen und den Käuferseiten und wird hier aufbewahrt; ihre Bestellungen und Tickets bleiben gültig.',
  emptyBackToCurrent: 'Zurück zu den aktuellen Veranstaltungen',

  emptyOrders: 'Noch keine Bestellungen.',
  emptyDraft:
    'Bestellungen erscheinen hier, sobald Käufer bestellen können: Diese Veranstaltung ist ein Entwurf, den Käufer nicht sehen.',
  emptyPublishIt: 'Veröffentlichen',
  emptyArchivedEvent: 'Diese Veranstaltung ist archiviert: Käufer sehen sie nicht mehr.',
  emptyUnarchiveIt: 'Aus dem Archiv holen',
  emptyNothingToBuy:
    'Bestellungen erscheinen hier, sobald es etwas zu kaufen gibt: Diese Veranstaltung hat noch keine Ticketarten.',
  emptyAddTicketType: 'Ticketart hinzufügen',
  emptyShare: 'Bestellungen erscheinen hier, sobald Käufer bestellen. Teilen Sie Ihre Veranstaltungsseite:',
  emptyOrComp: 'Oder Freikarten ausstellen',
  emptyAskOrganiser: 'Inhaber oder Manager des Kontos können das ändern.',
  emptyNoMatch: 'Keine Bestellungen passen zu diesen Filtern.',
  emptyClearFilters: 'Filter zurücksetzen',
  emptyNothingOnSale: 'Noch nichts im Verkauf: Hier erscheint die Verfügbarkeit jeder Ticketart, jedes Extras und jedes Termins.',
  emptyNoLists: 'Noch keine Einlasslisten: Der Einlass prüft Tickets anhand einer Liste.',
  emptyAddList: 'Einlassliste hinzufügen',

  emptyDoor:
    'Heute und demnächst keine Veranstaltungen am Einlass. Eine Veranstaltung steht hier mit ihren Einlasslisten bis einen Tag nach ihrem Ende.',
  emptyDoorPast: 'Noch keine vergangenen Veranstaltungen. Eine Veranstaltung erscheint hier einen Tag nach ihrem Ende.',
  emptyCreateEvent: 'Veranstaltung anlegen',
  emptySeePast: 'Vergangene Veranstaltungen ansehen',

  emptyInRange: 'Keine Bestellungen in diesem Zeitraum.',
  emptyAllTime: 'Gesamten Zeitraum zeigen',
  emptySaved:
    'Noch keine gespeicherten Berichte. Wählen Sie oben Gruppierung, Zeitraum und Filter und speichern Sie sie unten, um mit einem Klick zurückzukommen.',
  emptySavedReadOnly: 'Noch keine gespeicherten Berichte.',

  emptyWaitingOn:
    'Niemand steht auf der Warteliste. Ist eine Ticketart ausverkauft, bietet die Veranstaltungsseite an, sich einzutragen, und frei werdende Plätze werden hier der Reihe nach angeboten.',
  emptyWaitingOff:
    'Niemand steht auf der Warteliste: Sie ist für diese Veranstaltung ausgeschaltet. Eingeschaltet bietet eine ausverkaufte Ticketart Käufern an, sich einzutragen.',
  emptyWaitingTurnOn: 'Warteliste einschalten',
  emptyMessages:
    'Noch keine Nachrichten. Nachrichten an die Käufer dieser Veranstaltung stehen hier, mit der Zahl ihrer Empfänger.',
  emptyWriteFirst: 'Erste Nachricht schreiben',

  emptyKind: {
    'ticket-types':
      'Ticketarten wählen Käufer auf der Veranstaltungsseite, jede mit ihrem Preis und, wenn Sie möchten, einem Kontingent.',
    goods: 'Extras werden mit Tickets verkauft: Merchandise, Parkplätze, ein Essen.',
    sessions: 'Termine sind Tage oder Zeitfenster, für die ein Ticket gilt, jeder mit eigenem Kontingent.',
    donations: 'Mit Spenden fügen Käufer ihrer Bestellung einen Betrag ihrer Wahl hinzu.',
    codes: 'Rabattcodes ziehen einen Prozentsatz oder Betrag ab, für alle Ticketarten oder nur einige.',
    audiences:
      'Zielgruppen sind Gruppen wie Mitglieder oder Presse: Jede hat eine eigene Seite, und Ticketarten lassen sich nur an eine verkaufen.',
    portals:
      'Portale sind eigene Seiten für einen Partner oder Vertriebsweg, wahlweise für eine Zielgruppe; die Berichte zeigen, was jedes verkauft hat.',
    'checkin-lists': 'Einlasslisten legen fest, welche Tickets der Einlass annimmt; der Scanner arbeitet mit einer davon.',
  },
  emptyNeedsTypes: 'Noch keine Ticketarten.',

  emptyTeam:
    'Bisher nur Sie. Laden Sie die Menschen ein, mit denen Sie arbeiten: Manager betreuen Veranstaltungen und Bestellungen, Einlasspersonal scannt nur Tickets.',
  emptyInvite: 'Jemanden einladen',
  emptyTokens:
    'Noch keine API-Schlüssel. Ein Schlüssel erlaubt einem anderen Programm (Ihrer Website, einer Abendkasse, einem Skript), dieses Konto über die API zu nutzen.',
  emptyCreateToken: 'Schlüssel erstellen',
  emptyWebhooks:
    'Noch keine Endpunkte. Ein Webhook meldet einem anderen System (Ihrem CRM, einer Tabelle, einem Chat) sofort, wenn eine Bestellung eingeht, bezahlt oder erstattet wird.',
  emptyAddEndpoint: 'Endpunkt hinzufügen',
  emptyDeliveries:
    'Noch keine Zustellungen. Jedes an diesen Endpunkt gesendete Ereignis steht hier mit der Antwort, die es bekam.',

  emptyInvoicesIssue: 'Noch keine Rechnung zu dieser Bestellung. Stellen Sie unten eine mit der Anschrift des Käufers aus.',
  emptyInvoicesUnpaid: 'Noch keine Rechnung zu dieser Bestellung: Eine Rechnung wird ausgestellt, sobald sie bezahlt ist.',
  emptyInvoicesNone: 'Keine Rechnung zu dieser Bestellung.',
  emptyInvoicingSettings: 'Einstellungen zur Rechnungsstellung',
};
