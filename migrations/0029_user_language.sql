-- The console's language a person chose on their sign-in page ("en", "de"); null follows the
-- browser's Accept-Language. A tag no catalogue speaks reads as English, so no list is kept here.
alter table users add column language text check (language is null or length(language) between 2 and 35);
