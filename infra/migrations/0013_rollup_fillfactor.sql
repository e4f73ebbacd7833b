-- Up Migration
-- Room on every page of the counter rollups for their next update (docs/decisions.md, Storage, "fillfactor").
-- A batch adds its delta to thousands of rollup rows; packed full, a page has no space for the new version of
-- a row, which then goes to another page and needs a new entry in the table's primary key as well. With a
-- fifth of each page kept free, most updates stay on their page (a HOT update: no index entry, less WAL).
-- Pages written from now on keep the room; existing ones get it as they are rewritten.
alter table attribution_daily set (fillfactor = 80);
alter table attribution_by_source set (fillfactor = 80);
alter table attribution_by_ad set (fillfactor = 80);
alter table ad_spend_daily set (fillfactor = 80);
alter table web_daily set (fillfactor = 80);
alter table web_users set (fillfactor = 80);
alter table product_daily set (fillfactor = 80);
alter table product_users set (fillfactor = 80);
alter table product_credits_daily set (fillfactor = 80);
