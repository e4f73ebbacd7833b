-- Up Migration
-- The attribution rollup without the landing page: reports that do not group by landing_page read this
-- one, several times smaller (a store has tens of landing pages per source). Maintained from the same
-- credit deltas as attribution_daily, in the same transaction, and checked by the reconciliation.
create table attribution_by_source (
  store_id     text not null,
  day          date not null,
  goal         text not null,
  model        text not null,
  channel      text not null,
  source       text not null,
  medium       text not null,
  campaign     text not null,
  platform     text not null,
  weight       bigint not null,
  new_weight   bigint not null,
  value_micros bigint not null,
  cogs_micros  bigint not null,
  primary key (store_id, goal, model, day, channel, source, medium, campaign, platform)
);

insert into attribution_by_source
select store_id, day, goal, model, channel, source, medium, campaign, platform,
       sum(weight), sum(new_weight), sum(value_micros), sum(cogs_micros)
from attribution_daily
group by store_id, day, goal, model, channel, source, medium, campaign, platform
having sum(weight) <> 0 or sum(new_weight) <> 0 or sum(value_micros) <> 0 or sum(cogs_micros) <> 0;
