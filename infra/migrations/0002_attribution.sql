-- Up Migration
-- Attribution engine (docs/product.md, Sessions and touchpoints and Identity and Conversions and goals and Attribution and Views and metrics). Facts are what was stored; views are maintained incrementally in
-- the batch transaction and must always equal a recomputation from the facts (npm run reconcile).

-- FACTS ------------------------------------------------------------------------------------------------

-- The part of each storefront event the views derive from, amounts converted to the store currency when
-- the event was processed. Kept when raw_events are pruned by retention.
create table event_facts (
  store_id       text not null,
  event_id       text not null,
  client_id      text not null,
  name           text not null,
  occurred_at    timestamptz not null,
  page_url       text not null,
  referrer       text not null,
  email          text,
  customer_id    text,
  order_id       text,
  checkout_token text,
  is_first_order boolean,
  value_micros   bigint,
  value_orig     numeric,
  currency_orig  text,
  -- [[variant id, quantity], ...] of the event's line items, for cost of goods.
  lines          jsonb not null default '[]',
  primary key (store_id, event_id)
);
create index event_facts_client_idx on event_facts (store_id, client_id, occurred_at);
create index event_facts_order_idx on event_facts (store_id, order_id) where order_id is not null;

-- The latest version of each pushed order, reduced to what conversions need.
create table order_facts (
  store_id       text not null,
  order_id       text not null,
  created_at     timestamptz not null,
  cancelled      boolean not null,
  email          text,
  customer_id    text,
  value_micros   bigint not null,
  refunded_micros bigint not null,
  value_orig     numeric not null,
  currency_orig  text not null,
  landing_site   text not null,
  referring_site text not null,
  checkout_token text,
  lines          jsonb not null default '[]',
  primary key (store_id, order_id)
);

-- Unit cost of goods per variant, from product pushes.
create table variant_costs (
  store_id    text not null,
  variant_id  text not null,
  product_id  text not null,
  cost_micros bigint not null,
  primary key (store_id, variant_id)
);

-- Conversion rates to the store currency (docs/product.md, Conversions and goals): 1 unit of `currency` = `rate` store units.
create table currency_rates (
  store_id   text not null references stores (store_id) on delete cascade,
  currency   char(3) not null,
  rate       numeric not null check (rate > 0),
  updated_at timestamptz not null default now(),
  primary key (store_id, currency)
);

-- Identity links (docs/product.md, Identity): a client carries keys `e:<email>`, `c:<customer id>`, `o:<order id>`, `k:<checkout token>`.
-- Links are only ever added. Orders pushed by the store are pseudo-clients `order:<order id>`.
create table identity_links (
  store_id  text not null,
  client_id text not null,
  key       text not null,
  primary key (store_id, client_id, key)
);
create index identity_links_key_idx on identity_links (store_id, key);

-- VIEWS ------------------------------------------------------------------------------------------------

-- Each client's person: the smallest client id of its connected component of identity links.
create table clients (
  store_id      text not null,
  client_id     text not null,
  person_id     text not null,
  first_seen_at timestamptz not null,
  primary key (store_id, client_id)
);
create index clients_person_idx on clients (store_id, person_id);

-- Sessions and their touchpoints (docs/product.md, Sessions and touchpoints), per client.
create table sessions (
  store_id         text not null,
  client_id        text not null,
  started_at       timestamptz not null,
  landing_event_id text not null,
  origin           text not null,
  channel          text not null,
  source           text not null,
  medium           text not null,
  campaign         text not null,
  landing_page     text not null,
  platform         text not null,
  content          text not null,
  term             text not null,
  link_code        text not null,
  click_id_param   text not null,
  primary key (store_id, client_id, started_at)
);
create index sessions_link_idx on sessions (store_id, link_code, started_at) where link_code <> '';

-- One row per conversion (docs/product.md, Conversions and goals) with its first and last credited touchpoints.
create table conversions (
  store_id        text not null,
  goal            text not null,
  conversion_key  text not null,
  person_id       text not null,
  client_id       text not null,
  occurred_at     timestamptz not null,
  day             date not null,
  value_micros    bigint not null,
  value_orig      numeric,
  currency_orig   text,
  cogs_micros     bigint not null,
  is_new          boolean not null,
  event_id        text,
  order_id        text,
  variant_ids     text[] not null default '{}',
  first_touch     jsonb not null,
  last_touch      jsonb not null,
  digest          text not null,
  primary key (store_id, goal, conversion_key)
);
create index conversions_person_idx on conversions (store_id, person_id);
create index conversions_order_idx on conversions (store_id, order_id) where order_id is not null;
create index conversions_variants_idx on conversions using gin (variant_ids);

-- Credits of every conversion per model and touchpoint (docs/product.md, Attribution), in integer units so a retraction
-- subtracts exactly what was added: weight in millionths of a conversion, money in micro-units.
create table conversion_credits (
  store_id       text not null,
  goal           text not null,
  conversion_key text not null,
  model          text not null,
  touch_index    integer not null,
  day            date not null,
  channel        text not null,
  source         text not null,
  medium         text not null,
  campaign       text not null,
  landing_page   text not null,
  platform       text not null,
  link_code      text not null,
  weight         bigint not null,
  new_weight     bigint not null,
  value_micros   bigint not null,
  cogs_micros    bigint not null,
  primary key (store_id, goal, conversion_key, model, touch_index)
);

-- The attribution rollup (docs/product.md, Views and metrics): the sum of credits by day (store time zone) and dimensions.
create table attribution_daily (
  store_id     text not null,
  day          date not null,
  goal         text not null,
  model        text not null,
  channel      text not null,
  source       text not null,
  medium       text not null,
  campaign     text not null,
  landing_page text not null,
  platform     text not null,
  weight       bigint not null,
  new_weight   bigint not null,
  value_micros bigint not null,
  cogs_micros  bigint not null,
  primary key (store_id, goal, model, day, channel, source, medium, campaign, landing_page, platform)
);

-- Ad spend by day and dimensions (docs/product.md, Views and metrics).
create table ad_spend_daily (
  store_id          text not null,
  day               date not null,
  platform          text not null,
  channel           text not null,
  source            text not null,
  medium            text not null,
  campaign          text not null,
  spend_micros      bigint not null,
  impressions       bigint not null,
  clicks            bigint not null,
  conv_value_micros bigint not null,
  primary key (store_id, day, platform, channel, source, medium, campaign)
);
