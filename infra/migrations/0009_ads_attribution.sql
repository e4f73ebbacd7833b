-- Up Migration
-- Ads attribution and the time-decay model (docs/product.md, Ads attribution and Attribution).

-- The time-decay model's half-life, per store, in days (settable with `npm run store -- set`).
alter table stores
  add column half_life_days numeric not null default 7
    check (half_life_days >= 0.1 and half_life_days <= 365);

-- Ad ids from the landing URL of each session, carried into its credits ("" when the URL has none).
alter table sessions
  add column campaign_id text not null default '',
  add column ad_set_id   text not null default '',
  add column ad_id       text not null default '';

alter table conversion_credits
  add column campaign_id text not null default '',
  add column ad_set_id   text not null default '',
  add column ad_id       text not null default '';

-- The ad rollup: credits of paid touchpoints (platform not "") by day and ad. Maintained from the same credit
-- deltas as attribution_daily, in the same transaction, checked by the reconciliation and rebuilt by replay.
create table attribution_by_ad (
  store_id     text not null,
  day          date not null,
  goal         text not null,
  model        text not null,
  channel      text not null,
  platform     text not null,
  campaign     text not null,
  campaign_id  text not null,
  ad_set_id    text not null,
  ad_id        text not null,
  weight       bigint not null,
  new_weight   bigint not null,
  value_micros bigint not null,
  cogs_micros  bigint not null,
  primary key (store_id, goal, model, day, channel, platform, campaign, campaign_id, ad_set_id, ad_id)
);

-- Seeded from the credits already stored (they have no ad ids yet), so that retracting one of them later
-- subtracts what was added. `npm run reconcile -- --store <id> --repair` then recomputes every store with
-- ad ids and time-decay credits (see docs/operations.md, Upgrading).
insert into attribution_by_ad
select store_id, day, goal, model, channel, platform, campaign, campaign_id, ad_set_id, ad_id,
       sum(weight), sum(new_weight), sum(value_micros), sum(cogs_micros)
from conversion_credits
where platform <> ''
group by store_id, day, goal, model, channel, platform, campaign, campaign_id, ad_set_id, ad_id
having sum(weight) <> 0 or sum(new_weight) <> 0 or sum(value_micros) <> 0 or sum(cogs_micros) <> 0;

-- The customers behind an ad report row (ad-analysis/customer-list) read the paid credits of a goal and model by day.
create index conversion_credits_paid_idx on conversion_credits (store_id, goal, model, day) where platform <> '';

-- When each identity-event destination last delivered and last failed (connection/destination), written by
-- the webhook worker at most every 5 seconds per destination.
alter table webhook_destinations
  add column last_delivery_at timestamptz,
  add column last_failure_at  timestamptz;
