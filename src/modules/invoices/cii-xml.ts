import { minorDigits } from '../../platform/money.ts';
import type { InvoiceContent } from '../orders/invoice-register.repo.ts';

/**
 * An invoice or credit note as EN 16931 Cross Industry Invoice XML (UN/CEFACT D16B), the
 * Factur-X / ZUGFeRD profile EN 16931 (`urn:cen.eu:en16931:2017`). Pure: the document as issued
 * in, the XML out. Element order follows the schema (vendor/en16931), which the tests check.
 *
 * The order was paid before the invoice existed: the whole amount is prepaid and nothing is due.
 * A credit note (type 381) carries positive amounts and names the invoice it corrects.
 */

export interface CiiInput {
  number: string;
  kind: 'invoice' | 'credit_note';
  issued_at: Date | string;
  currency: string;
  content: InvoiceContent;
}

const esc = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' })[c]!);

/** YYYYMMDD (format 102), the UTC date the register numbers by. */
const day = (d: Date | string) => new Date(d).toISOString().slice(0, 10).replace(/-/g, '');

/** A rate in basis points as a percentage: 1900 -> "19", 750 -> "7.5". */
const percent = (bp: number) => String(bp / 100);

/** VAT category (UNCL 5305): reverse charge AE, zero rated Z, standard S. */
function category(rateBp: number, reverse: boolean): string {
  return reverse ? 'AE' : rateBp === 0 ? 'Z' : 'S';
}

export function ciiXml(doc: CiiInput): string {
  const c = doc.content;
  const cur = doc.currency.toUpperCase();
  const digits = minorDigits(doc.currency);
  const amt = (cents: number) => (cents / 10 ** digits).toFixed(digits);
  // a unit's net price: as exact as four decimals allow (the line's net amount is the exact figure)
  const unit = (cents: number, qty: number) => String(Number((cents / qty / 10 ** digits).toFixed(4)));
  const reverse = c.reverse_charge;
  const tax = (rateBp: number) =>
    `<ram:TypeCode>VAT</ram:TypeCode>` +
    `<ram:CategoryCode>${category(rateBp, reverse)}</ram:CategoryCode>` +
    `<ram:RateApplicablePercent>${percent(rateBp)}</ram:RateApplicablePercent>`;
  const lines = c.lines
    .map(
      (l, i) =>
        `<ram:IncludedSupplyChainTradeLineItem>` +
        `<ram:AssociatedDocumentLineDocument><ram:LineID>${i + 1}</ram:LineID></ram:AssociatedDocumentLineDocument>` +
        `<ram:SpecifiedTradeProduct><ram:Name>${esc(l.name)}</ram:Name></ram:SpecifiedTradeProduct>` +
        `<ram:SpecifiedLineTradeAgreement><ram:NetPriceProductTradePrice><ram:ChargeAmount>${unit(l.net_cents, l.quantity)}</ram:ChargeAmount></ram:NetPriceProductTradePrice></ram:SpecifiedLineTradeAgreement>` +
        `<ram:SpecifiedLineTradeDelivery><ram:BilledQuantity unitCode="C62">${l.quantity}</ram:BilledQuantity></ram:SpecifiedLineTradeDelivery>` +
        `<ram:SpecifiedLineTradeSettlement>` +
        `<ram:ApplicableTradeTax>${tax(l.rate_bp)}</ram:ApplicableTradeTax>` +
        `<ram:SpecifiedTradeSettlementLineMonetarySummation><ram:LineTotalAmount>${amt(l.net_cents)}</ram:LineTotalAmount></ram:SpecifiedTradeSettlementLineMonetarySummation>` +
        `</ram:SpecifiedLineTradeSettlement>` +
        `</ram:IncludedSupplyChainTradeLineItem>`,
    )
    .join('');
  const issuerLines = c.issuer.address
    .split(/\r?\n/)
    .map((s) => s.trim())
    .filter(Boolean);
  const seller =
    `<ram:SellerTradeParty><ram:Name>${esc(c.issuer.name)}</ram:Name>` +
    `<ram:PostalTradeAddress>` +
    (issuerLines[0] ? `<ram:LineOne>${esc(issuerLines[0])}</ram:LineOne>` : '') +
    (issuerLines[1] ? `<ram:LineTwo>${esc(issuerLines[1])}</ram:LineTwo>` : '') +
    (issuerLines.length > 2 ? `<ram:LineThree>${esc(issuerLines.slice(2).join(', '))}</ram:LineThree>` : '') +
    `<ram:CountryID>${c.issuer.country}</ram:CountryID></ram:PostalTradeAddress>` +
    (c.issuer.vat_id
      ? `<ram:SpecifiedTaxRegistration><ram:ID schemeID="VA">${esc(c.issuer.vat_id)}</ram:ID></ram:SpecifiedTaxRegistration>`
      : '') +
    (c.issuer.tax_number
      ? `<ram:SpecifiedTaxRegistration><ram:ID schemeID="FC">${esc(c.issuer.tax_number)}</ram:ID></ram:SpecifiedTaxRegistration>`
      : '') +
    `</ram:SellerTradeParty>`;
  const a = c.buyer.address;
  // without an address (a consumer's simplified invoice) the buyer is named as the order names
  // them, in the issuer's country
  const buyerName = a ? (a.company ?? a.name) : (c.buyer.name ?? c.buyer.email ?? '-');
  const buyer =
    `<ram:BuyerTradeParty><ram:Name>${esc(buyerName)}</ram:Name>` +
    (a?.company ? `<ram:DefinedTradeContact><ram:PersonName>${esc(a.name)}</ram:PersonName></ram:DefinedTradeContact>` : '') +
    `<ram:PostalTradeAddress>` +
    (a
      ? `<ram:PostcodeCode>${esc(a.postcode)}</ram:PostcodeCode><ram:LineOne>${esc(a.street)}</ram:LineOne><ram:CityName>${esc(a.city)}</ram:CityName><ram:CountryID>${a.country}</ram:CountryID>`
      : `<ram:CountryID>${c.issuer.country}</ram:CountryID>`) +
    `</ram:PostalTradeAddress>` +
    (c.buyer.email
      ? `<ram:URIUniversalCommunication><ram:URIID schemeID="EM">${esc(c.buyer.email)}</ram:URIID></ram:URIUniversalCommunication>`
      : '') +
    (a?.vat_id
      ? `<ram:SpecifiedTaxRegistration><ram:ID schemeID="VA">${esc(a.vat_id)}</ram:ID></ram:SpecifiedTaxRegistration>`
      : '') +
    `</ram:BuyerTradeParty>`;
  const breakdown = c.rates
    .map(
      (r) =>
        `<ram:ApplicableTradeTax>` +
        `<ram:CalculatedAmount>${amt(r.vat_cents)}</ram:CalculatedAmount>` +
        `<ram:TypeCode>VAT</ram:TypeCode>` +
        (reverse ? `<ram:ExemptionReason>Reverse charge</ram:ExemptionReason>` : '') +
        `<ram:BasisAmount>${amt(r.net_cents)}</ram:BasisAmount>` +
        `<ram:CategoryCode>${category(r.rate_bp, reverse)}</ram:CategoryCode>` +
        (reverse ? `<ram:ExemptionReasonCode>VATEX-EU-AE</ram:ExemptionReasonCode>` : '') +
        `<ram:RateApplicablePercent>${percent(r.rate_bp)}</ram:RateApplicablePercent>` +
        `</ram:ApplicableTradeTax>`,
    )
    .join('');
  const notes = [
    c.corrects ? `Corrects invoice ${c.corrects.number}` : null,
    reverse ? 'Reverse charge: VAT to be accounted for by the recipient (Article 196, Council Directive 2006/112/EC)' : null,
  ].filter((n): n is string => n !== null);
  const lineTotal = c.lines.reduce((s, l) => s + l.net_cents, 0);
  return (
    `<?xml version="1.0" encoding="UTF-8"?>\n` +
    `<rsm:CrossIndustryInvoice xmlns:rsm="urn:un:unece:uncefact:data:standard:CrossIndustryInvoice:100" xmlns:qdt="urn:un:unece:uncefact:data:standard:QualifiedDataType:100" xmlns:ram="urn:un:unece:uncefact:data:standard:ReusableAggregateBusinessInformationEntity:100" xmlns:udt="urn:un:unece:uncefact:data:standard:UnqualifiedDataType:100">` +
    `<rsm:ExchangedDocumentContext><ram:GuidelineSpecifiedDocumentContextParameter><ram:ID>urn:cen.eu:en16931:2017</ram:ID></ram:GuidelineSpecifiedDocumentContextParameter></rsm:ExchangedDocumentContext>` +
    `<rsm:ExchangedDocument>` +
    `<ram:ID>${esc(doc.number)}</ram:ID>` +
    `<ram:TypeCode>${doc.kind === 'invoice' ? 380 : 381}</ram:TypeCode>` +
    `<ram:IssueDateTime><udt:DateTimeString format="102">${day(doc.issued_at)}</udt:DateTimeString></ram:IssueDateTime>` +
    notes.map((n) => `<ram:IncludedNote><ram:Content>${esc(n)}</ram:Content></ram:IncludedNote>`).join('') +
    `</rsm:ExchangedDocument>` +
    `<rsm:SupplyChainTradeTransaction>` +
    lines +
    `<ram:ApplicableHeaderTradeAgreement><ram:BuyerReference>${esc(c.order.ref)}</ram:BuyerReference>${seller}${buyer}</ram:ApplicableHeaderTradeAgreement>` +
    `<ram:ApplicableHeaderTradeDelivery><ram:ActualDeliverySupplyChainEvent><ram:OccurrenceDateTime><udt:DateTimeString format="102">${day(c.order.event_starts_at)}</udt:DateTimeString></ram:OccurrenceDateTime></ram:ActualDeliverySupplyChainEvent></ram:ApplicableHeaderTradeDelivery>` +
    `<ram:ApplicableHeaderTradeSettlement>` +
    `<ram:InvoiceCurrencyCode>${cur}</ram:InvoiceCurrencyCode>` +
    breakdown +
    `<ram:SpecifiedTradePaymentTerms><ram:Description>${doc.kind === 'invoice' ? 'Paid in full' : 'Refunded'}</ram:Description></ram:SpecifiedTradePaymentTerms>` +
    `<ram:SpecifiedTradeSettlementHeaderMonetarySummation>` +
    `<ram:LineTotalAmount>${amt(lineTotal)}</ram:LineTotalAmount>` +
    `<ram:TaxBasisTotalAmount>${amt(c.net_cents)}</ram:TaxBasisTotalAmount>` +
    `<ram:TaxTotalAmount currencyID="${cur}">${amt(c.vat_cents)}</ram:TaxTotalAmount>` +
    `<ram:GrandTotalAmount>${amt(c.total_cents)}</ram:GrandTotalAmount>` +
    `<ram:TotalPrepaidAmount>${amt(c.total_cents)}</ram:TotalPrepaidAmount>` +
    `<ram:DuePayableAmount>${amt(0)}</ram:DuePayableAmount>` +
    `</ram:SpecifiedTradeSettlementHeaderMonetarySummation>` +
    (c.corrects
      ? `<ram:InvoiceReferencedDocument><ram:IssuerAssignedID>${esc(c.corrects.number)}</ram:IssuerAssignedID><ram:FormattedIssueDateTime><qdt:DateTimeString format="102">${day(c.corrects.issued_at)}</qdt:DateTimeString></ram:FormattedIssueDateTime></ram:InvoiceReferencedDocument>`
      : '') +
    `</ram:ApplicableHeaderTradeSettlement>` +
    `</rsm:SupplyChainTradeTransaction>` +
    `</rsm:CrossIndustryInvoice>\n`
  );
}
