-- Up Migration
-- A credit row sums the touchpoints of one conversion and model that share its dimensions (docs/decisions.md,
-- Storage, "One credit row per distinct touchpoint"); `touches` counts them. Rows written before were one per
-- touchpoint, so 1 is exact for them; a conversion's rows are grouped when it is next rewritten or repaired.
-- A constant default is kept in the catalog: the table is not rewritten.
alter table conversion_credits add column touches integer not null default 1;
