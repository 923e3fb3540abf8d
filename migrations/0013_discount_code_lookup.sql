-- Codes are matched case-insensitively (EARLY = early) and an event may hold thousands of them
-- (generated in bulk, contract section 6): checkout looks up only the codes it was given, by this
-- index, which also keeps two codes differing only in case from existing.
create unique index discount_codes_event_code_upper on discount_codes (event_id, upper(code));
