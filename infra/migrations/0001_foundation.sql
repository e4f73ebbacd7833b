-- Up Migration
-- Foundation: tenants, credentials, the raw event store, store pushes, dead letters.
-- Every table leads with store_id so the database can be distributed by store (docs/product.md, Operations).

create table stores (
  store_id      text primary key,
  name          text not null,
  timezone      text not null,
  currency      char(3) not null,
  lookback_days integer not null default 30 check (lookback_days in (1, 7, 14, 30, 60, 90, 180)),
  created_at    timestamptz not null default now()
);

-- Credentials are stored as SHA-256 digests only (docs/product.md, Credentials and tenancy).
create table credentials (
  store_id   text not null references stores (store_id) on delete cascade,
  kind       text not null check (kind in ('api_key', 'ingest_key', 'access_token')),
  digest     bytea not null,
  created_at timestamptz not null default now(),
  revoked_at timestamptz,
  primary key (store_id, kind, digest)
);
create unique index credentials_digest_idx on credentials (digest);

-- Every accepted storefront event, exactly once per (store, event id).
create table raw_events (
  store_id    text not null,
  event_id    text not null,
  client_id   text not null,
  name        text not null,
  occurred_at timestamptz not null,
  received_at timestamptz not null,
  stored_at   timestamptz not null default now(),
  stream_seq  bigint not null,
  payload     jsonb not null,
  primary key (store_id, event_id)
);
create index raw_events_client_idx on raw_events (store_id, client_id, occurred_at);
create index raw_events_stored_idx on raw_events (stored_at);

-- Store pushes: idempotent upserts by natural key, a newer updated_at wins (docs/product.md, Ingestion).
create table shop_orders (
  store_id   text not null,
  order_id   text not null,
  updated_at timestamptz not null,
  stream_seq bigint not null,
  payload    jsonb not null,
  primary key (store_id, order_id)
);

create table shop_products (
  store_id   text not null,
  product_id text not null,
  updated_at timestamptz not null,
  stream_seq bigint not null,
  payload    jsonb not null,
  primary key (store_id, product_id)
);

create table shop_customers (
  store_id    text not null,
  customer_id text not null,
  updated_at  timestamptz not null,
  stream_seq  bigint not null,
  payload     jsonb not null,
  primary key (store_id, customer_id)
);

-- Ad spend rows with their amounts converted to the store currency when they were processed, so the
-- spend rollup can retract a replaced version exactly.
create table ad_spend (
  store_id          text not null,
  day               date not null,
  platform          text not null,
  account_id        text not null,
  campaign_id       text not null,
  adset_id          text not null,
  ad_id             text not null,
  updated_at        timestamptz not null,
  stream_seq        bigint not null,
  channel           text not null,
  source            text not null,
  medium            text not null,
  campaign          text not null,
  spend_micros      bigint not null,
  impressions       bigint not null,
  clicks            bigint not null,
  conv_value_micros bigint not null,
  row               jsonb not null,
  primary key (store_id, day, platform, account_id, campaign_id, adset_id, ad_id)
);

-- Poison messages: undecodable or invalid, with the reason and where they sat in the stream (docs/product.md, Delivery guarantees).
create table dead_letters (
  id         bigserial primary key,
  store_id   text,
  stream_seq bigint not null,
  subject    text not null,
  reason     text not null,
  payload    text not null,
  created_at timestamptz not null default now(),
  unique (stream_seq, subject)
);
create index dead_letters_store_idx on dead_letters (store_id, created_at);

-- Tracking links (docs/product.md, Tracking links). Codes are unique across stores: the redirect listener sees only the code.
create table tracking_links (
  store_id     text not null references stores (store_id) on delete cascade,
  code         text not null,
  landing_page text not null,
  campaign     text not null,
  source       text not null,
  medium       text not null,
  content      text not null default '',
  term         text not null default '',
  creator      text not null default '',
  created_at   timestamptz not null default now(),
  primary key (store_id, code)
);
create unique index tracking_links_code_idx on tracking_links (code);
create index tracking_links_created_idx on tracking_links (store_id, created_at);

-- Clicks recorded by the redirect listener, through the stream (idempotent on the click id).
create table link_clicks (
  store_id   text not null,
  click_id   text not null,
  code       text not null,
  client_id  text not null,
  clicked_at timestamptz not null,
  ip         text not null,
  user_agent text not null,
  referrer   text not null,
  primary key (store_id, click_id)
);
create index link_clicks_code_idx on link_clicks (store_id, code, clicked_at);
