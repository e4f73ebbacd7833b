-- Up Migration
-- Identity-event webhooks (docs/product.md, Identity events and destinations).

-- Destinations per store. The signing secret must be readable to sign (Standard Webhooks symmetric
-- scheme), so it is stored as is; restrict access to this table like any credential store.
create table webhook_destinations (
  store_id        text not null references stores (store_id) on delete cascade,
  destination_id  text not null,
  url             text not null,
  secret          text not null,
  -- Identity events sent to this destination (the six names of the spec).
  events          text[] not null,
  enabled         boolean not null default true,
  disabled_reason text,
  created_at      timestamptz not null default now(),
  updated_at      timestamptz not null default now(),
  primary key (store_id, destination_id)
);

-- Deliveries that exhausted their retries (or whose destination was disabled), for inspection and redrive.
create table webhook_dead_letters (
  id              bigserial primary key,
  store_id        text not null,
  destination_id  text not null,
  webhook_id      text not null,
  event_name      text not null,
  body            text not null,
  attempts        integer not null,
  last_status     integer,
  last_error      text not null,
  created_at      timestamptz not null default now(),
  redriven_at     timestamptz
);
create index webhook_dead_letters_store_idx on webhook_dead_letters (store_id, created_at) where redriven_at is null;
