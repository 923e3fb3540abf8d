import { describe, expect, it } from 'vitest';
import type { InvoiceContent } from '../orders/invoice-register.repo.ts';
import { ciiXml } from './cii-xml.ts';
import { validateCii } from './cii-xsd.fixture.ts';

const content: InvoiceContent = {
  issuer: {
    name: 'Konferenz <GmbH> & Co',
    address: 'Hauptstr. 1\n10115 Berlin\nGermany',
    country: 'DE',
    vat_id: 'DE123456789',
    tax_number: '12/345/67890',
  },
  buyer: {
    name: 'Ada',
    email: 'ada@example.org',
    address: {
      company: 'Acme SARL',
      name: 'Ada Lovelace',
      street: '1 rue de Rivoli',
      postcode: '75001',
      city: 'Paris',
      country: 'FR',
      vat_id: 'FR12345678901',
    },
  },
  order: { ref: 'ABC-123', event_name: 'Conf', event_starts_at: '2027-03-15T18:00:00.000Z', paid_at: '2026-11-22T12:00:00.000Z' },
  reverse_charge: false,
  lines: [
    { name: 'Day', quantity: 3, gross_cents: 5550, discount_cents: 1110, net_cents: 4036, rate_bp: 1000 },
    { name: 'Donation', quantity: 1, gross_cents: 500, discount_cents: 0, net_cents: 500, rate_bp: 0 },
  ],
  rates: [
    { rate_bp: 0, gross_cents: 500, net_cents: 500, vat_cents: 0 },
    { rate_bp: 1000, gross_cents: 4440, net_cents: 4036, vat_cents: 404 },
  ],
  net_cents: 4536,
  vat_cents: 404,
  total_cents: 4940,
};

describe('CII XML (EN 16931)', () => {
  it('an invoice validates against the official schema and says what the register says', async () => {
    const xml = ciiXml({ number: 'RE2026-7', kind: 'invoice', issued_at: '2026-11-22T12:00:00Z', currency: 'eur', content });
    await validateCii(xml);
    expect(xml).toContain('<ram:ID>urn:cen.eu:en16931:2017</ram:ID>');
    expect(xml).toContain('<ram:TypeCode>380</ram:TypeCode>');
    expect(xml).toContain('<udt:DateTimeString format="102">20261122</udt:DateTimeString>');
    expect(xml).toContain('<ram:Name>Konferenz &lt;GmbH&gt; &amp; Co</ram:Name>');
    expect(xml).toContain('<ram:ChargeAmount>13.4533</ram:ChargeAmount>');
    expect(xml).toContain(
      '<ram:CalculatedAmount>4.04</ram:CalculatedAmount><ram:TypeCode>VAT</ram:TypeCode><ram:BasisAmount>40.36</ram:BasisAmount><ram:CategoryCode>S</ram:CategoryCode>',
    );
    expect(xml).toContain('<ram:CategoryCode>Z</ram:CategoryCode><ram:RateApplicablePercent>0</ram:RateApplicablePercent>');
    expect(xml).toContain(
      '<ram:TaxBasisTotalAmount>45.36</ram:TaxBasisTotalAmount><ram:TaxTotalAmount currencyID="EUR">4.04</ram:TaxTotalAmount><ram:GrandTotalAmount>49.40</ram:GrandTotalAmount>',
    );
    expect(xml).toContain('<ram:DuePayableAmount>0.00</ram:DuePayableAmount>');
  });

  it('a reverse-charge invoice, a credit note and an invoice without an address validate too', async () => {
    const reverse: InvoiceContent = {
      ...content,
      reverse_charge: true,
      lines: content.lines.map((l) => ({ ...l, rate_bp: 0 })),
      rates: [{ rate_bp: 0, gross_cents: 4940, net_cents: 4940, vat_cents: 0 }],
      net_cents: 4940,
      vat_cents: 0,
    };
    const rc = ciiXml({
      number: 'RE2026-8',
      kind: 'invoice',
      issued_at: '2026-11-22T12:00:00Z',
      currency: 'eur',
      content: reverse,
    });
    await validateCii(rc);
    expect(rc).toContain('<ram:CategoryCode>AE</ram:CategoryCode><ram:ExemptionReasonCode>VATEX-EU-AE</ram:ExemptionReasonCode>');
    const credit = ciiXml({
      number: 'RE2026-9',
      kind: 'credit_note',
      issued_at: '2026-11-23T12:00:00Z',
      currency: 'eur',
      content: { ...content, corrects: { number: 'RE2026-7', issued_at: '2026-11-22T12:00:00Z' }, reason: 'refund' },
    });
    await validateCii(credit);
    expect(credit).toContain('<ram:TypeCode>381</ram:TypeCode>');
    expect(credit).toContain('<ram:InvoiceReferencedDocument><ram:IssuerAssignedID>RE2026-7</ram:IssuerAssignedID>');
    const bare = ciiXml({
      number: 'R2026-1',
      kind: 'invoice',
      issued_at: '2026-11-22T12:00:00Z',
      currency: 'jpy',
      content: { ...content, buyer: { name: null, email: 'x@example.org', address: null } },
    });
    await validateCii(bare);
    expect(bare).toContain('<ram:GrandTotalAmount>4940</ram:GrandTotalAmount>');
  });

  it('the validator refuses XML that breaks the schema (it can fail)', async () => {
    const xml = ciiXml({ number: 'X', kind: 'invoice', issued_at: '2026-11-22T12:00:00Z', currency: 'eur', content });
    await expect(validateCii(xml.replace('<ram:TypeCode>380</ram:TypeCode>', '<ram:Kind>380</ram:Kind>'))).rejects.toThrow(
      /does not validate/,
    );
  });
});
