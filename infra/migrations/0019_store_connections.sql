-- Up Migration
-- Store platform connections (docs/product.md, Store connections): a Shopify shop or a WooCommerce site that
-- sends its own signed order webhooks to /hooks/<kind>/<connection id>. The signing secret must be read to
-- verify a signature, so it cannot be hashed: it is sealed under SECRETS_KEY (AES-256-GCM, bound to its row),
-- like a Klaviyo key (docs/decisions.md, Store connections).
create table store_connections (
  connection_id text primary key,
  store_id text not null references stores (store_id) on delete cascade,
  kind text not null check (kind in ('shopify', 'woocommerce')),
  -- The shop's myshopify.com domain, or the WooCommerce site URL.
  account text not null,
  secret_sealed text not null,
  created_at timestamptz not null default now(),
  unique (store_id, kind, account)
);
create index store_connections_store on store_connections (store_id);

-- One row per accepted delivery, by a deterministic delivery key (Shopify's webhook id, or WooCommerce's
-- resource, topic, id and modification time): counts for get/connection/source, and the durable record of
-- Shopify's privacy requests (`payload` kept for those only, to be handled by the privacy operations).
create table store_hook_deliveries (
  connection_id text not null references store_connections (connection_id) on delete cascade,
  delivery_key text not null,
  topic text not null,
  received_at timestamptz not null default now(),
  payload jsonb,
  primary key (connection_id, delivery_key)
);
create index store_hook_deliveries_received on store_hook_deliveries (connection_id, received_at);
create index store_hook_deliveries_privacy on store_hook_deliveries (topic) where payload is not null;

-- The latest order version a connection published, and the refunds that arrived on their own (Shopify
-- `refunds/create`, WooCommerce deletions): a refund or deletion republishes the order with itself merged,
-- under a row lock, so that two deliveries of one order never race (docs/decisions.md, Store connections).
create table store_hook_orders (
  store_id text not null references stores (store_id) on delete cascade,
  order_id text not null,
  -- Null until the order itself arrived (a refund may come first).
  updated_at timestamptz,
  deleted boolean not null default false,
  payload jsonb,
  extra_refunds jsonb not null default '[]',
  primary key (store_id, order_id)
);

