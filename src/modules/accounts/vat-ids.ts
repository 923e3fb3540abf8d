/**
 * Countries and VAT identification numbers: the checks an invoice address and an issuer go
 * through (contract section 14). Pure. A VAT ID is checked for its country's format only; whether
 * it is registered (VIES) is not asked here, as no checkout should wait on that service.
 */

/** ISO 3166-1 alpha-2, officially assigned codes. */
const ISO_3166 = new Set(
  (
    'AD AE AF AG AI AL AM AO AQ AR AS AT AU AW AX AZ BA BB BD BE BF BG BH BI BJ BL BM BN BO BQ BR BS BT BV BW BY BZ ' +
    'CA CC CD CF CG CH CI CK CL CM CN CO CR CU CV CW CX CY CZ DE DJ DK DM DO DZ EC EE EG EH ER ES ET FI FJ FK FM FO FR ' +
    'GA GB GD GE GF GG GH GI GL GM GN GP GQ GR GS GT GU GW GY HK HM HN HR HT HU ID IE IL IM IN IO IQ IR IS IT JE JM JO ' +
    'JP KE KG KH KI KM KN KP KR KW KY KZ LA LB LC LI LK LR LS LT LU LV LY MA MC MD ME MF MG MH MK ML MM MN MO MP MQ MR ' +
    'MS MT MU MV MW MX MY MZ NA NC NE NF NG NI NL NO NP NR NU NZ OM PA PE PF PG PH PK PL PM PN PR PS PT PW PY QA RE RO ' +
    'RS RU RW SA SB SC SD SE SG SH SI SJ SK SL SM SN SO SR SS ST SV SX SY SZ TC TD TF TG TH TJ TK TL TM TN TO TR TT TV ' +
    'TW TZ UA UG UM US UY UZ VA VC VE VG VI VN VU WF WS YE YT ZA ZM ZW'
  ).split(' '),
);

/** The EU member states, by ISO code. */
const EU = new Set('AT BE BG CY CZ DE DK EE ES FI FR GR HR HU IE IT LT LU LV MT NL PL PT RO SE SI SK'.split(' '));

/**
 * VAT ID formats (after the prefix), as the Commission's VIES documents them; Greece's prefix is
 * EL, Northern Ireland's traders (XI) are not taken here. Outside the EU: the UK, Switzerland
 * and Norway, which business buyers at European events commonly have.
 */
const FORMATS: Record<string, { prefix: string; body: RegExp }> = {
  AT: { prefix: 'AT', body: /^U\d{8}$/ },
  BE: { prefix: 'BE', body: /^[01]\d{9}$/ },
  BG: { prefix: 'BG', body: /^\d{9,10}$/ },
  CY: { prefix: 'CY', body: /^\d{8}[A-Z]$/ },
  CZ: { prefix: 'CZ', body: /^\d{8,10}$/ },
  DE: { prefix: 'DE', body: /^\d{9}$/ },
  DK: { prefix: 'DK', body: /^\d{8}$/ },
  EE: { prefix: 'EE', body: /^\d{9}$/ },
  ES: { prefix: 'ES', body: /^[A-Z0-9]\d{7}[A-Z0-9]$/ },
  FI: { prefix: 'FI', body: /^\d{8}$/ },
  FR: { prefix: 'FR', body: /^[A-HJ-NP-Z0-9]{2}\d{9}$/ },
  GR: { prefix: 'EL', body: /^\d{9}$/ },
  HR: { prefix: 'HR', body: /^\d{11}$/ },
  HU: { prefix: 'HU', body: /^\d{8}$/ },
  IE: { prefix: 'IE', body: /^(\d{7}[A-W][A-I]?|\d[A-Z+*]\d{5}[A-W])$/ },
  IT: { prefix: 'IT', body: /^\d{11}$/ },
  LT: { prefix: 'LT', body: /^(\d{9}|\d{12})$/ },
  LU: { prefix: 'LU', body: /^\d{8}$/ },
  LV: { prefix: 'LV', body: /^\d{11}$/ },
  MT: { prefix: 'MT', body: /^\d{8}$/ },
  NL: { prefix: 'NL', body: /^\d{9}B\d{2}$/ },
  PL: { prefix: 'PL', body: /^\d{10}$/ },
  PT: { prefix: 'PT', body: /^\d{9}$/ },
  RO: { prefix: 'RO', body: /^[1-9]\d{1,9}$/ },
  SE: { prefix: 'SE', body: /^\d{10}01$/ },
  SI: { prefix: 'SI', body: /^\d{8}$/ },
  SK: { prefix: 'SK', body: /^\d{10}$/ },
  GB: { prefix: 'GB', body: /^(\d{9}|\d{12}|GD[0-4]\d{2}|HA[5-9]\d{2})$/ },
  CH: { prefix: 'CHE', body: /^\d{9}(MWST|TVA|IVA)?$/ },
  NO: { prefix: 'NO', body: /^\d{9}(MVA)?$/ },
};

export function isCountry(code: string): boolean {
  return ISO_3166.has(code);
}

export function isEuCountry(code: string): boolean {
  return EU.has(code);
}

/** A VAT ID as written without spaces, dots and dashes, in capitals. */
export function normaliseVatId(raw: string): string {
  return raw.replace(/[\s.-]/g, '').toUpperCase();
}

/** Why a VAT ID is not one of `country`'s, or null when its format fits (or the country's format is not known). */
export function vatIdProblem(country: string, vatId: string): string | null {
  const id = normaliseVatId(vatId);
  const f = FORMATS[country];
  if (!f) return /^[A-Z0-9]{4,20}$/.test(id) ? null : 'is not a VAT ID';
  if (!id.startsWith(f.prefix)) return `does not start with ${f.prefix} (the country's prefix)`;
  return f.body.test(id.slice(f.prefix.length)) ? null : `is not in the format of a VAT ID of ${country}`;
}

/**
 * Reverse charge (contract section 14): a business buyer, known by its VAT ID, in another EU
 * member state than the issuer.
 */
export function isReverseCharge(issuerCountry: string, buyer: { country: string; vat_id?: string | undefined } | null): boolean {
  return Boolean(buyer?.vat_id) && isEuCountry(issuerCountry) && isEuCountry(buyer!.country) && buyer!.country !== issuerCountry;
}
