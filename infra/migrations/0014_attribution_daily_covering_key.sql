-- Up Migration
-- The attribution rollup's primary key carries its figures (docs/decisions.md, Storage, "covering key"): a report
-- grouped by landing page reads a store's rows of one goal and model over the range, which lie among every
-- other goal's and model's rows of the same days; from the key alone, in key order, they are read by an
-- index-only scan instead of one heap page per few rows.
alter table attribution_daily drop constraint attribution_daily_pkey;
alter table attribution_daily
  add constraint attribution_daily_pkey
  primary key (store_id, goal, model, day, channel, source, medium, campaign, landing_page, platform)
  include (weight, new_weight, value_micros, cogs_micros);
