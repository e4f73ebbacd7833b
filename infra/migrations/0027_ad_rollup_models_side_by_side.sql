-- Up Migration
-- The ad rollup keeps the six models' sums side by side in one row per group, as the attribution rollups do since
-- 0026 (docs/decisions.md, Storage, "The models side by side"): most models credit every paid touchpoint of a
-- conversion, so a batch upserted four to five rows per ad group and day. The ad report reads its model's four
-- columns (`<sum>_<model>`, in the order of MODELS in contracts/src/attribution.ts) from the rows where they are not
-- all zero. A day's key and the 24 sums are over the 32 columns an index may hold, so the key covers nothing.
-- The table is rebuilt from its rows by model, summed by group.

alter table attribution_by_ad rename to attribution_by_ad_by_model;
alter table attribution_by_ad_by_model
  rename constraint attribution_by_ad_pkey to attribution_by_ad_by_model_pkey;
create table attribution_by_ad (
  store_id                 text not null,
  day                      date not null,
  goal                     text not null,
  channel                  text not null,
  platform                 text not null,
  campaign                 text not null,
  campaign_id              text not null,
  ad_set_id                text not null,
  ad_id                    text not null,
  weight_first             bigint not null,
  new_weight_first         bigint not null,
  value_micros_first       bigint not null,
  cogs_micros_first        bigint not null,
  weight_last              bigint not null,
  new_weight_last          bigint not null,
  value_micros_last        bigint not null,
  cogs_micros_last         bigint not null,
  weight_linear            bigint not null,
  new_weight_linear        bigint not null,
  value_micros_linear      bigint not null,
  cogs_micros_linear       bigint not null,
  weight_position          bigint not null,
  new_weight_position      bigint not null,
  value_micros_position    bigint not null,
  cogs_micros_position     bigint not null,
  weight_time_decay        bigint not null,
  new_weight_time_decay    bigint not null,
  value_micros_time_decay  bigint not null,
  cogs_micros_time_decay   bigint not null,
  weight_data_driven       bigint not null,
  new_weight_data_driven   bigint not null,
  value_micros_data_driven bigint not null,
  cogs_micros_data_driven  bigint not null,
  constraint attribution_by_ad_pkey
    primary key (store_id, goal, day, channel, platform, campaign, campaign_id, ad_set_id, ad_id)
) with (fillfactor = 80);

insert into attribution_by_ad
select store_id, day, goal, channel, platform, campaign, campaign_id, ad_set_id, ad_id,
       coalesce(sum(weight) filter (where model = 'first'), 0) as weight_first,
       coalesce(sum(new_weight) filter (where model = 'first'), 0) as new_weight_first,
       coalesce(sum(value_micros) filter (where model = 'first'), 0) as value_micros_first,
       coalesce(sum(cogs_micros) filter (where model = 'first'), 0) as cogs_micros_first,
       coalesce(sum(weight) filter (where model = 'last'), 0) as weight_last,
       coalesce(sum(new_weight) filter (where model = 'last'), 0) as new_weight_last,
       coalesce(sum(value_micros) filter (where model = 'last'), 0) as value_micros_last,
       coalesce(sum(cogs_micros) filter (where model = 'last'), 0) as cogs_micros_last,
       coalesce(sum(weight) filter (where model = 'linear'), 0) as weight_linear,
       coalesce(sum(new_weight) filter (where model = 'linear'), 0) as new_weight_linear,
       coalesce(sum(value_micros) filter (where model = 'linear'), 0) as value_micros_linear,
       coalesce(sum(cogs_micros) filter (where model = 'linear'), 0) as cogs_micros_linear,
       coalesce(sum(weight) filter (where model = 'position'), 0) as weight_position,
       coalesce(sum(new_weight) filter (where model = 'position'), 0) as new_weight_position,
       coalesce(sum(value_micros) filter (where model = 'position'), 0) as value_micros_position,
       coalesce(sum(cogs_micros) filter (where model = 'position'), 0) as cogs_micros_position,
       coalesce(sum(weight) filter (where model = 'time_decay'), 0) as weight_time_decay,
       coalesce(sum(new_weight) filter (where model = 'time_decay'), 0) as new_weight_time_decay,
       coalesce(sum(value_micros) filter (where model = 'time_decay'), 0) as value_micros_time_decay,
       coalesce(sum(cogs_micros) filter (where model = 'time_decay'), 0) as cogs_micros_time_decay,
       coalesce(sum(weight) filter (where model = 'data_driven'), 0) as weight_data_driven,
       coalesce(sum(new_weight) filter (where model = 'data_driven'), 0) as new_weight_data_driven,
       coalesce(sum(value_micros) filter (where model = 'data_driven'), 0) as value_micros_data_driven,
       coalesce(sum(cogs_micros) filter (where model = 'data_driven'), 0) as cogs_micros_data_driven
from attribution_by_ad_by_model
group by store_id, day, goal, channel, platform, campaign, campaign_id, ad_set_id, ad_id;
drop table attribution_by_ad_by_model;
