-- Up Migration
-- Ad-platform connections of a store (docs/product.md, Ad spend from the ad platforms): the account whose daily
-- ad-level spend the spend pull keeps current. The credentials are one JSON object sealed under SECRETS_KEY,
-- bound to the connection id; the status says whether the last pull worked and, if not, the platform's message.
create table ad_connections (
  connection_id  text primary key,
  store_id       text not null references stores (store_id) on delete cascade,
  kind           text not null check (kind in ('meta', 'google', 'tiktok')),
  account_id     text not null,
  secrets_sealed text not null,
  status         text not null default 'connected' check (status in ('connected', 'failing')),
  last_error     text,
  last_pull_at   timestamptz,
  -- The rows and days of the last successful pull, and the days it has ever covered.
  last_rows      integer not null default 0,
  last_days      integer not null default 0,
  first_day      date,
  last_day       date,
  created_at     timestamptz not null default now(),
  updated_at     timestamptz not null default now(),
  unique (store_id, kind, account_id)
);
create index ad_connections_store on ad_connections (store_id);
