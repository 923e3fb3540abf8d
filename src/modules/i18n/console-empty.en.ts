/**
 * The console's empty lists in English: what will appear there, and the next step to take (a
 * link or button beside the sentence), as pretix, Hi.Events and Eventbrite say it.
 */
export const consoleEmptyEn = {
  // events
  emptyEvents: 'No events yet. Your events will be listed here with their tickets sold and sales.',
  emptyCreateFirstEvent: 'Create your first event',
  emptyEventsAskOwner: 'An owner or manager of the account creates them.',
  emptyArchived:
    'No archived events. An event you archive leaves the lists and the buyer pages and is kept here; its orders and tickets keep working.',
  emptyBackToCurrent: 'Back to the current events',

  // orders, and what an event needs before it sells
  emptyOrders: 'No orders yet.',
  emptyDraft: 'Orders appear here once buyers can order: this event is a draft, which buyers cannot see.',
  emptyPublishIt: 'Publish it',
  emptyArchivedEvent: 'This event is archived: buyers no longer see it.',
  emptyUnarchiveIt: 'Unarchive it',
  emptyNothingToBuy: 'Orders appear here once there is something to buy: this event has no ticket types yet.',
  emptyAddTicketType: 'Add a ticket type',
  emptyShare: 'Orders appear here as buyers order. Share your event page:',
  emptyOrComp: 'Or issue a complimentary order',
  emptyAskOrganiser: 'An owner or manager of the account can change that.',
  emptyNoMatch: 'No orders match these filters.',
  emptyClearFilters: 'Clear the filters',
  emptyNothingOnSale: 'Nothing on sale yet: availability appears here for each ticket type, extra and session.',
  emptyNoLists: 'No check-in lists yet: the door scans tickets against one.',
  emptyAddList: 'Add a check-in list',

  // the door
  emptyDoor:
    'No events at the door today or coming up. An event is listed here with its check-in lists until a day after it ends.',
  emptyDoorPast: 'No past events yet. An event moves here a day after it ends.',
  emptyCreateEvent: 'Create an event',
  emptySeePast: 'See past events',

  // reports
  emptyInRange: 'No orders in this range.',
  emptyAllTime: 'Show all time',
  emptySaved: 'No saved reports yet. Choose a grouping, range and filters above, then save them below to come back in one click.',
  emptySavedReadOnly: 'No saved reports yet.',

  // waiting list, messages
  emptyWaitingOn:
    'Nobody is on the waiting list. When a ticket type sells out, its event page offers to join it, and places that come free are offered here in turn.',
  emptyWaitingOff:
    'Nobody is on the waiting list: it is off for this event. Turned on, a sold-out ticket type offers buyers to join it.',
  emptyWaitingTurnOn: 'Turn the waiting list on',
  emptyMessages: 'No messages yet. Messages you send to this event’s buyers are listed here, with how many received them.',
  emptyWriteFirst: 'Write the first message',

  // catalogue tabs: what each kind is for
  emptyKind: {
    'ticket-types': 'Ticket types are what buyers choose on the event page, each with its price and, if you like, a capacity.',
    goods: 'Goods are extras sold with tickets: merchandise, parking, a meal.',
    sessions: 'Sessions are dates or time slots a ticket is for, each with its own capacity.',
    donations: 'Donations let buyers add an amount of their choice to their order.',
    codes: 'Discount codes take a percent or an amount off, for every ticket type or only some.',
    audiences:
      'Audiences are groups such as members or the press: each has a page of its own, and ticket types can be sold to one only.',
    portals:
      'Portals are pages of their own for a partner or a channel, optionally for one audience; the reports show what each sold.',
    'checkin-lists': 'Check-in lists say which tickets the door admits; the scanner works from one.',
  } as Record<string, string>,
  emptyNeedsTypes: 'No ticket types yet.',

  // account pages
  emptyTeam: 'Only you so far. Invite the people you work with: managers run events and orders, door staff only scan tickets.',
  emptyInvite: 'Invite someone',
  emptyTokens:
    'No API tokens yet. A token lets another program (your website, a box office, a script) use this account through the API.',
  emptyCreateToken: 'Create a token',
  emptyWebhooks:
    'No endpoints yet. A webhook tells another system (your CRM, a spreadsheet, a chat) the moment an order is placed, paid or refunded.',
  emptyAddEndpoint: 'Add an endpoint',
  emptyDeliveries: 'No deliveries yet. Every event sent to this endpoint is listed here with the answer it got.',

  // an order's invoices
  emptyInvoicesIssue: 'No invoice for this order yet. Issue one below with the buyer’s address.',
  emptyInvoicesUnpaid: 'No invoice for this order yet: an invoice is issued once the order is paid.',
  emptyInvoicesNone: 'No invoice for this order.',
  emptyInvoicingSettings: 'Invoicing settings',
};

export type ConsoleEmpty = typeof consoleEmptyEn;
