-- Up Migration
-- Privacy and data rights (docs/operations.md, Privacy): what erasure needs to find a person's stream messages,
-- the identifiers it keeps out of the pipeline afterwards, the requests it serves and its audit.

-- The stream sequence of every message the pipeline stored or found a duplicate of, by the client it belongs to:
-- a browser client, an order's pseudo-client (`order:<id>`) or a customer push (`customer:<id>`). Raw payloads
-- carry their sequence too, but retention deletes them and a duplicate has none; erasure deletes the messages by
-- these sequences (docs/decisions.md, Privacy).
create table message_owners (
  store_id   text not null,
  owner      text not null,
  stream_seq bigint not null,
  primary key (store_id, owner, stream_seq)
);

-- Tombstones: SHA-256 digests of the identifiers of erased persons (`client:<id>`, `key:<identity key>`). The
-- pipeline drops a message that names one (an event published before the erasure and processed after it) for
-- PRIVACY_TOMBSTONE_DAYS; never the identifiers themselves.
create table erased_identifiers (
  store_id  text not null,
  digest    text not null,
  erased_at timestamptz not null default now(),
  primary key (store_id, digest)
);

-- Requests of the privacy operations: erasures asked through the API or by Shopify (run by the pipeline, which
-- holds the view maintenance), exports Shopify asked for (the document kept for the operator), store deletions.
-- `subject` holds the identifiers of a pending request only; it is cleared when the request is done.
create table privacy_requests (
  request_id  text primary key,
  store_id    text not null,
  kind        text not null check (kind in ('erase', 'export', 'delete_store')),
  source      text not null check (source in ('api', 'cli', 'shopify')),
  credential  text not null,
  subject     jsonb,
  status      text not null default 'pending' check (status in ('pending', 'running', 'done', 'failed')),
  received_at timestamptz not null default now(),
  started_at  timestamptz,
  finished_at timestamptz,
  result      jsonb,
  error       text
);
create index privacy_requests_pending_idx on privacy_requests (received_at) where status in ('pending', 'running');
create index privacy_requests_store_idx on privacy_requests (store_id, received_at);

-- The audit of every erasure, export and store deletion: when, through what, by which credential (its kind and the
-- first hex digits of its digest), what was removed or exported. Never the identifiers. Kept when the store is
-- deleted: it is the operator's proof that the deletion happened.
create table privacy_audit (
  id           bigserial primary key,
  store_id     text not null,
  action       text not null check (action in ('erase', 'export', 'delete_store')),
  source       text not null,
  credential   text not null,
  requested_at timestamptz not null,
  finished_at  timestamptz not null default now(),
  counts       jsonb not null
);
create index privacy_audit_store_idx on privacy_audit (store_id, finished_at);

-- Raw payloads kept this many days for the store (null: RETENTION_RAW_EVENTS_DAYS; 0 keeps them).
alter table stores add column raw_retention_days integer check (raw_retention_days >= 0);

-- Erasure finds a person's link clicks by client.
create index link_clicks_client_idx on link_clicks (store_id, client_id);

