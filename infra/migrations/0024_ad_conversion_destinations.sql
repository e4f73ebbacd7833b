-- Up Migration
-- Destinations of the ad platforms' conversion APIs (docs/product.md, Conversions to the ad platforms): purchases
-- are sent to Meta's Conversions API (`meta_capi`), Google Ads click conversions (`google_ads`) or TikTok's Events
-- API (`tiktok_events`). Their settings that are no secret (pixel id, test event code, customer id, conversion
-- action) are kept in `settings`; the access token of Meta and TikTok is sealed in `api_key_sealed` like a Klaviyo
-- key. A `google_ads` destination has no credential of its own: it uses the store's Google Ads connection.
alter table webhook_destinations
  add column settings jsonb,
  drop constraint webhook_destinations_kind_check,
  drop constraint webhook_destinations_credential_check;

alter table webhook_destinations
  add constraint webhook_destinations_kind_check
    check (kind in ('webhook', 'klaviyo', 'meta_capi', 'google_ads', 'tiktok_events')),
  add constraint webhook_destinations_credential_check check (
    (kind = 'webhook' and secret is not null and api_key_sealed is null)
    or (kind = 'klaviyo' and secret is null and api_key_sealed is not null)
    or (kind in ('meta_capi', 'tiktok_events') and secret is null and api_key_sealed is not null and settings is not null)
    or (kind = 'google_ads' and secret is null and api_key_sealed is null and settings is not null)
  );
