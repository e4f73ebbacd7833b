-- Up Migration
-- The link report sums last-touch credits per tracking link.
create index conversion_credits_link_idx on conversion_credits (store_id, link_code, goal, model, day) where link_code <> '';
