-- Up Migration
-- Destinations of kind `klaviyo`: the identity events are POSTed to Klaviyo's Create Event API with the
-- store's Klaviyo private key instead of being signed with a Standard Webhooks secret. The key must be sent,
-- so it cannot be hashed: it is stored encrypted (AES-256-GCM under SECRETS_KEY, bound to its row; see
-- docs/decisions.md, Identity events and destinations). A `webhook` destination has a signing secret and no key, a `klaviyo` one the
-- reverse.
alter table webhook_destinations
  add column kind text not null default 'webhook',
  add column api_key_sealed text,
  alter column secret drop not null;

alter table webhook_destinations
  add constraint webhook_destinations_kind_check check (kind in ('webhook', 'klaviyo')),
  add constraint webhook_destinations_credential_check check (
    (kind = 'webhook' and secret is not null and api_key_sealed is null)
    or (kind = 'klaviyo' and secret is null and api_key_sealed is not null)
  );
