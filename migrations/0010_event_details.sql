-- Event details of the second wave's account file (contract section 4): a Markdown description,
-- a venue {name, address, map_url} and the buyer pages' default language. The old free-text
-- venue column (never written by the importer) becomes the venue object.
alter table events add column description text;
alter table events drop column venue;
alter table events add column venue jsonb;
alter table events add column locale text not null default 'en';

-- Discount codes that were redeemed cannot be deleted (reports name them); they are disabled.
alter table discount_codes add column disabled_at timestamptz;
