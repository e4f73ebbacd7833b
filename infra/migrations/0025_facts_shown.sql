-- Up Migration
-- What is shown of an event moves into its facts, so that no read needs the raw payload and the raw payloads are
-- written outside the batch transaction, or not at all (docs/decisions.md, Storage, "Raw payloads off the hot
-- path"): the journey's page title, IP, user agent and event-kind objects, the profiles' names, phone and address,
-- the ad platforms' `_fbp`, and when the event was stored (data health, sources).
alter table event_facts
  add column stored_at   timestamptz,
  add column received_at timestamptz,
  add column page_title  text,
  add column client_ip   text,
  add column user_agent  text,
  add column fbp         text,
  add column data        json;
alter table event_facts alter column data set compression lz4;

-- The facts of events whose payloads are still kept take those fields from them; the kinds whose `data` is kept are
-- contracts/src/event-shown.ts KINDS_WITH_DATA.
update event_facts f set
  stored_at   = r.stored_at,
  received_at = r.received_at,
  page_title  = nullif(r.payload->'context'->'document'->>'title', ''),
  client_ip   = nullif(r.payload->>'clientIp', ''),
  user_agent  = nullif(r.payload->'context'->'navigator'->>'userAgent', ''),
  fbp         = nullif(r.payload->>'fbp', ''),
  data        = case when f.name in ('product_viewed', 'collection_viewed', 'product_added_to_cart',
                  'product_removed_from_cart', 'cart_viewed', 'search_submitted', 'lead_form_submitted',
                  'checkout_started', 'checkout_contact_info_submitted', 'checkout_address_info_submitted',
                  'checkout_shipping_info_submitted', 'payment_info_submitted', 'checkout_completed')
                then r.payload->'data' end
from raw_events r
where r.store_id = f.store_id and r.event_id = f.event_id;
-- Pruned before: stored no later than the event happened is the best that is known.
update event_facts set stored_at = occurred_at where stored_at is null;
alter table event_facts alter column stored_at set default now(), alter column stored_at set not null;
create index event_facts_stored_idx on event_facts (store_id, stored_at);

-- A store whose raw payloads are not stored at all (`npm run store -- retention --days none`).
alter table stores add column raw_payloads_stored boolean not null default true;
