import { selfServiceEn } from './self-service.en.ts';
import { queueEn } from './queue.en.ts';

/**
 * The buyer side's English messages: every word the event, pay and order pages, the public
 * pages, the buyer mails and the ticket PDF show. Other languages implement the same type
 * (`Messages`), so the compiler refuses a catalogue with a message missing or of the wrong shape.
 * Values are plain text (pages escape them); a function takes the parts a sentence needs.
 */
export const en = {
  languageName: 'English',
  language: 'Language',

  // the page frame
  skipToContent: 'Skip to content',
  poweredBy: 'Powered by admit',

  // the event page
  addToCalendar: 'Add to calendar',
  aboutEvent: 'About this event',
  mapAndDirections: 'Map and directions',
  salesEnd: (when: string) => `Sales end ${when}.`,
  salesEnded: 'Sales for this event have ended.',
  salesStart: (when: string) => `Tickets go on sale ${when}.`,
  nothingOnSale: 'No tickets are on sale for this event at the moment.',
  previewBanner: 'Preview: buyers cannot see this page until the event is published.',
  checkFields: 'Please check the highlighted fields.',
  currency: 'Currency',
  currencyNoScript: (currency: string) => `Prices below are in ${currency}; change the currency with ?currency= in the address.`,
  tickets: 'Tickets',
  extras: 'Extras',
  donations: 'Donations',
  donationLabel: (name: string, currency: string) => `${name} (${currency}, any amount)`,
  free: 'Free',
  notSoldInCurrency: 'not sold in this currency',
  onlyLeft: (n: number) => `only ${n} left`,
  soldOut: 'Sold out',
  soldOutShort: 'sold out',
  unavailable: 'Unavailable',
  sessionFor: (ticketType: string) => `Session for ${ticketType}`,
  choose: 'Choose…',
  yourDetails: 'Your details',
  name: 'Name',
  email: 'Email',
  required: 'required',
  discountCode: 'Discount code (optional)',
  ticketOf: (ticketType: string, n: number) => `${ticketType}, ticket ${n}`,
  attendeeQuestionsLater: 'Questions for each ticket holder follow once you have chosen tickets.',
  total: 'Total',
  holdExplained: (minutes: number) =>
    `When you continue, your tickets are held for you for ${minutes} ${minutes === 1 ? 'minute' : 'minutes'} while you pay; if you do not pay in that time, they go back on sale.`,
  continueToPayment: 'Continue to payment',
  /** the checkout button when nothing on the page costs anything */
  getTickets: 'Get tickets',

  // the checkout form's field messages
  enterWholeNumber: 'Enter a whole number',
  chooseSession: 'Choose a session',
  enterAmount: 'Enter an amount such as 10 or 12.50',
  amountAtMost: (max: string) => `Enter at most ${max}`,
  enterName: 'Enter your name',
  enterEmail: 'Enter your email address: the tickets are sent there',
  notAnEmail: 'This is not an email address',
  chooseTicket: 'Choose at least one ticket',
  answerQuestion: 'Please answer this question',
  /** a checkout refused by the order pipeline: English keeps the pipeline's own, more specific words */
  checkoutError: (code: string, message: string): string => message || code,

  // pay and order pages
  payFor: (event: string) => `Pay for ${event}`,
  yourOrderFor: (event: string) => `Your order for ${event}`,
  notPayable: 'Not payable',
  payByCard: 'Pay by card',
  paymentPending: 'Payment pending',
  paymentNotConfirmed: 'Your payment has not been confirmed yet. Nothing more is charged if you try again.',
  backToPayment: 'Back to the payment',
  order: 'Order',
  forName: (name: string) => `for ${name}`,
  reservedUntil: 'Your tickets are reserved until',
  timeIsUp: 'Time is up.',
  /** the countdown's text; `{time}` is replaced in the browser */
  timeLeft: '{time} left.',
  testMode: 'Test mode: no card is needed and no money moves.',
  payAmount: (amount: string) => `Pay ${amount}`,
  cardDetails: 'Card details',
  stripeNote:
    'Your card is processed by Stripe. Already paid in another window? Press the button to check: nothing is charged twice.',
  alreadyPaid: 'This order is already paid. Nothing was charged again.',
  holdEnded: 'The reservation for this order has ended, so it can no longer be paid. Nothing was charged.',
  orderCanceled: 'This order was canceled and can no longer be paid. Nothing was charged.',
  orderRefunded: 'This order was refunded.',
  paymentsUnavailable: 'Payments are not available for this event right now. Nothing was charged.',
  seeOrder: 'See your order and tickets',
  statusPending: 'Waiting for payment.',
  statusCanceled: 'This order was canceled.',
  statusRefunded: 'This order was refunded; its tickets are no longer valid.',
  payNow: 'Pay now',
  // the confirmation (the order page of a paid order)
  youreGoing: 'You’re going!',
  confirmationLead: (ref: string, email: string | null) =>
    email ? `Order ${ref} is paid. Your tickets are on their way to ${email}.` : `Order ${ref} is paid.`,
  when: 'When',
  where: 'Where',
  paid: 'Paid',
  ticketCount: (n: number) => (n === 1 ? '1 ticket' : `${n} tickets`),
  whatNext: 'What to do next',
  nextBring: 'Bring your tickets: show each QR code on your phone at the entrance, or print the PDF.',
  nextOnePerson: 'Each code admits one person, once: share a ticket by sending its PDF, not a screenshot of the whole page.',
  nextCalendar: 'Add the event to your calendar so it does not slip by.',
  downloadTickets: 'Download tickets (PDF)',
  receipt: 'Receipt',
  keepPagePrivate: 'Keep this page’s address private: whoever has it holds the order.',
  yourTickets: 'Your tickets',
  qrFor: (ref: string) => `QR code for ticket ${ref}`,
  noLongerValid: 'No longer valid',
  ticketAsPdf: (ref: string) => `Ticket ${ref} as PDF`,
  // wallet passes (contract section 15): the platforms' own button wording
  walletHeading: 'Tickets on your phone',
  walletTicket: (ref: string) => `Ticket ${ref}`,
  addToAppleWallet: 'Add to Apple Wallet',
  saveToGoogleWallet: 'Save to Google Wallet',
  item: 'Item',
  quantity: 'Qty',
  price: 'Price',
  inclTax: (rate: string, amount: string) => `incl. ${rate}% tax: ${amount}`,
  discountCodeLine: (code: string) => `Discount code ${code}`,
  tax: 'Tax',
  includesTax: (amount: string) => `(includes ${amount} tax)`,
  payments: 'Payments',
  /** how a payment was made, by its rail */
  rails: {
    card: 'card',
    wallet: 'wallet',
    sandbox: 'test payment (sandbox, no money moved)',
    terminal: 'card at the venue',
  } as Record<string, string>,
  paidBy: (amount: string, rail: string, when: string, test: boolean) =>
    `Paid ${amount} by ${rail}${test ? ', no money moved' : ''}, ${when}`,
  refundedLine: (amount: string, when: string, test: boolean) => `Refunded ${amount}${test ? ' (test refund)' : ''}, ${when}`,

  // what a ticket's or an order's QR code opens
  qrTicketStatus: (ref: string, type: string, valid: boolean) =>
    `Ticket ${ref} (${type}): ${valid ? 'valid' : 'no longer valid'}.`,
  qrShowAtDoor: 'Show this code at the door; staff scan it with the check-in app.',
  qrOrderStatus: (ref: string, valid: number) => `Order ${ref}: ${valid} valid ticket${valid === 1 ? '' : 's'}.`,

  // root and account pages
  ticketsOnServer: 'Tickets on this server',
  organiserConsole: 'Organiser console',
  apiDocs: 'API documentation',
  upcomingEvents: 'Upcoming events',
  noUpcomingEvents: 'No upcoming events right now.',

  // mails
  ticketsSubject: (event: string, ref: string) => `Your tickets for ${event} (${ref})`,
  ticketsTitle: (event: string) => `Your tickets for ${event}`,
  thankYou: (ref: string, event: string, when: string) => `Thank you for your order ${ref} for ${event}, ${when}.`,
  totalPaid: (amount: string) => `Total paid: ${amount}.`,
  yourTicketsList: (list: string) => `Your tickets: ${list}.`,
  showCodes: 'Show the QR codes on your order page at the door. Keep this link private: whoever has it holds the order.',
  openTickets: 'Open your tickets',
  orderPageLine: (url: string) => `Your order page: ${url}`,
  lateReinstated: (ref: string) =>
    `Your payment for order ${ref} arrived after the reservation had ended, but the tickets were still available: your order is confirmed.`,
  lateRefunding: (ref: string) =>
    `Your payment for order ${ref} arrived after the reservation had ended and the tickets are no longer available. The full amount is being refunded to you.`,
  lateReinstatedSubject: (ref: string, event: string) => `Order ${ref} for ${event} confirmed`,
  lateRefundingSubject: (ref: string, event: string) => `Order ${ref} for ${event}: your payment is being refunded`,
  orderConfirmed: 'Your order is confirmed',
  paymentBeingRefunded: 'Your payment is being refunded',
  openOrder: 'Open your order',
  payLinkReserved: (ref: string, event: string, when: string) =>
    `Your order ${ref} for ${event}, ${when}, is reserved and waits for payment.`,
  amountDue: (amount: string) => `Amount due: ${amount}.`,
  holdsUntil: (when: string) => `The reservation holds until ${when}.`,
  keepPayLinkPrivate: 'Keep this link private: whoever has it can pay for and hold the order.',
  payLinkSubject: (event: string, ref: string) => `Complete your order for ${event} (${ref})`,
  payLinkTitle: (event: string) => `Complete your order for ${event}`,
  payHere: (url: string) => `Pay here: ${url}`,
  refundedAmount: (amount: string, ref: string, event: string) => `We have refunded ${amount} for order ${ref} (${event}).`,
  refundTest: 'This was a test (sandbox) order: no real money moved.',
  refundTiming: 'It reaches your account in the time your bank takes, usually 5 to 10 days.',
  refundTicketsVoid: 'The tickets of this order are no longer valid.',
  refundSomeTicketsVoid: (refs: string) => `These tickets are no longer valid: ${refs}. Your other tickets stay valid.`,
  refundTicketsStayValid: 'Your tickets stay valid.',
  refundSubject: (ref: string, event: string) => `Refund for order ${ref} (${event})`,
  refundTitle: 'Your refund',

  // the waiting list (event page, its pages and mails)
  waitlistSoldOut: 'Sold out',
  waitlistJoinLead: (type: string) =>
    `"${type}" is sold out. Join the waiting list: when tickets come back, the first in line gets them reserved and a link to pay.`,
  waitlistJoin: 'Join the waiting list',
  waitlistName: 'Your name',
  waitlistEmail: 'Email',
  waitlistQuantity: 'How many tickets',
  waitlistJoinedTitle: 'You are on the waiting list',
  waitlistJoinedLead: (qty: number, type: string, event: string) =>
    `You are on the waiting list for ${qty} × ${type} (${event}). When tickets come back and it is your turn, we reserve them for you and send you a link to pay.`,
  waitlistCheckMail: 'We have sent you a confirmation by email, with a link to leave the list.',
  waitlistJoinedSubject: (event: string) => `You are on the waiting list for ${event}`,
  waitlistLeaveLine: (url: string) => `To leave the waiting list: ${url}`,
  waitlistLeaveButton: 'Leave the waiting list',
  waitlistLeaveTitle: 'Leave the waiting list',
  waitlistLeaveLead: (qty: number, type: string, event: string) =>
    `Your place on the waiting list for ${qty} × ${type} (${event}).`,
  waitlistLeftTitle: 'You have left the waiting list',
  waitlistLeftLead: 'Your place is given to the next in line. You can join again from the event page.',
  waitlistClosedLead: 'This place on the waiting list is no longer open.',
  waitlistOfferSubject: (event: string) => `Tickets for ${event} are reserved for you`,
  waitlistOfferTitle: (event: string) => `Your turn: tickets for ${event}`,
  waitlistOfferLead: (qty: number, type: string, event: string, when: string) =>
    `Tickets came back and it is your turn on the waiting list: ${qty} × ${type} for ${event}, ${when}, are reserved for you.`,
  waitlistOfferUntil: (when: string) => `Pay by ${when}. After that the tickets go to the next person on the list.`,

  // a message from the organiser to the buyers (contract section 15)
  messageAbout: (ref: string, event: string, when: string) =>
    `You receive this message as the buyer of order ${ref} for ${event}, ${when}.`,
  messageOrderLink: 'Your order and tickets',

  // the seat map
  seatMapTitle: 'Choose your seats',
  seatMapHint: 'Pick seats on the plan, or choose a number of tickets above and get the best seats available.',
  seatTaken: 'Taken',
  seatYours: 'Your choice',
  zoomIn: 'Zoom in',
  zoomOut: 'Zoom out',
  noSeatsChosen: 'No seats chosen: the best available are taken for you.',
  seatsChosen: 'Your seats:',
  seatsAtMost: 'That is as many seats as one order can have.',

  // the ticket PDF
  pdfTitle: (event: string, ref: string) => `${event}: tickets ${ref}`,
  pdfTicket: 'Ticket',
  pdfOrder: 'Order',
  pdfShowCode: 'Show this code at the entrance.',
  pdfOnePerson: 'Each code admits one person once.',

  // invoices: the checkout's address and the documents
  invoices: 'Invoices',
  invoiceAddress: 'Invoice address',
  invoiceAddressHint: 'For an invoice made out to you or your company.',
  invoiceAddressOptional: 'optional',
  company: 'Company',
  street: 'Street and number',
  postcode: 'Postcode',
  city: 'City',
  countryCode: 'Country (two-letter code, e.g. DE)',
  vatId: 'VAT ID',
  fillIn: 'Fill this in',
  notACountry: 'Enter the two-letter code of a country, e.g. DE or FR',
  notAVatId: "This is not a VAT ID of the country given (check the country's prefix, e.g. DE123456789)",
  invoiceRequestTitle: 'Need an invoice?',
  invoiceRequestHint:
    'The organiser makes one out on request. Give the address it should name, or leave the address empty for an invoice in the name on the order.',
  invoiceRequestHintBusiness: 'The organiser makes one out on request to a business: give the address it should name.',
  invoiceRequestButton: 'Request the invoice',
  invoice: 'Invoice',
  creditNote: 'Credit note',
  invoiceNo: 'Invoice no.',
  creditNoteNo: 'Credit note no.',
  issueDate: 'Date',
  orderRef: 'Order',
  billedTo: 'Billed to',
  vatIdOf: (id: string) => `VAT ID ${id}`,
  taxNumberOf: (n: string) => `Tax number ${n}`,
  description: 'Description',
  netAmount: 'Net',
  vatRate: 'VAT rate',
  vatAmount: 'VAT',
  discount: 'Discount',
  totalNet: 'Total net',
  totalVat: 'Total VAT',
  totalGross: 'Total',
  vatOn: (rate: string, net: string) => `VAT ${rate}% on ${net}`,
  paidWithThanks: 'Paid. Thank you.',
  corrects: (number: string, date: string) => `Corrects invoice ${number} of ${date}.`,
  reverseCharge: 'Reverse charge: VAT to be accounted for by the recipient (Article 196 of Council Directive 2006/112/EC).',
  invoiceFor: (event: string) => `Tickets: ${event}`,
  invoiceAttached: 'Your invoice is attached.',
  ...selfServiceEn,
  ...queueEn,
};

export type Messages = typeof en;
