/**
 * The console's invoicing pages in English: the account's invoicing settings (owners), an order's
 * invoices and credit notes with the form that corrects the address, and the refusals of both.
 */
export const consoleInvoicesEn = {
  // the settings; the intro goes around the number's pattern, shown as code
  ivcIntroBefore: 'With invoicing on, every paid order gets an invoice numbered',
  ivcIntroAfter:
    'without gaps, and every refund a credit note. Buyers are asked for an invoice address unless an event turns it off.',
  ivcIssueInvoices: 'Issue invoices',
  ivcIssuerName: 'Issuer name',
  ivcIssuerAddress: 'Issuer address',
  ivcIssuerAddressHint: 'Street, postcode and city, one per line.',
  ivcIssuerCountry: 'Country (ISO code, e.g. DE)',
  ivcVatId: 'VAT ID',
  ivcTaxNumber: 'Tax number',
  ivcTaxNumberHint: 'Needed when there is no VAT ID.',
  ivcPrefix: 'Number prefix',
  ivcPrefixHint: 'Letters, digits and dashes, up to 16; e.g. RE gives RE2026-1.',
  ivcBusinessOnly: 'Only for buyers who give an invoice address',
  ivcSave: 'Save invoicing',
  ivcSaved: 'Invoicing was saved.',
  // an order's invoices
  ivcBackToOrder: (ref: string) => `← Order ${ref}`,
  ivcNumber: 'Number',
  ivcKind: 'Kind',
  ivcIssued: 'Issued',
  ivcVat: 'VAT',
  ivcDownload: 'Download',
  ivcReplaced: 'replaced',
  ivcInvoice: 'Invoice',
  ivcCreditNote: 'Credit note',
  ivcCreditNoteFor: (invoice: string) => `Credit note for ${invoice}`,
  ivcCorrectTitle: 'Correct the address and issue again',
  ivcCorrectIntro: 'The invoice is cancelled by a credit note and a new one issued with this address; both get new numbers.',
  ivcIssueTitle: 'Issue an invoice',
  ivcIssueIntro:
    'This order has none: it was free, or paid before the account issued invoices. Issue one now, made out to this address.',
  ivcCompany: 'Company',
  ivcStreet: 'Street and number',
  ivcPostcode: 'Postcode',
  ivcCity: 'City',
  ivcCountry: 'Country (ISO code)',
  ivcIssueAgain: 'Issue again',
  ivcIssueTheInvoice: 'Issue the invoice',
  ivcTitle: (ref: string) => `Invoices of ${ref}`,
  ivcDoneReissued: 'The invoice was cancelled by a credit note and issued again.',
  ivcDoneIssued: 'The invoice was issued.',
  // the invoicing services' refusals (plain-words.ts)
  ivcPwPrefix: 'Letters, digits and dashes, at most 16.',
  ivcPwCountry: 'Is not an ISO 3166-1 country code.',
  ivcPwVatOrTax: "An invoice needs the issuer's VAT ID or tax number.",
  ivcPwNotVatId: 'Is not a VAT ID.',
  ivcPwVatPrefix: (prefix: string) => `Does not start with ${prefix} (the country's prefix).`,
  ivcPwVatFormat: (country: string) => `Is not in the format of a VAT ID of ${country}.`,
  ivcPwLonger: (max: string) => `Is longer than ${max} characters.`,
  ivcPwNotPaidReissue: 'Only a paid order has an invoice to issue again.',
  ivcPwCredited: 'A refund has credited part of this invoice; it cannot be issued again.',
  ivcPwNotPaid: 'Only a paid order can be invoiced.',
  ivcPwAlready: 'This order has its invoice already.',
};

export type ConsoleInvoices = typeof consoleInvoicesEn;
