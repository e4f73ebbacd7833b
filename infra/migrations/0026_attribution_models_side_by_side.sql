-- Up Migration
-- The attribution rollups keep the six models' sums side by side in one row per group instead of one row per model
-- (docs/decisions.md, Storage, "The models side by side"): a conversion's touchpoint groups are credited under
-- most models at once, so a batch upserted four to five rows per group, and PostgreSQL's cost is per row. A report
-- reads its model's four columns, from the rows where they are not all zero. The columns are named
-- `<sum>_<model>`, in the order of MODELS (contracts/src/attribution.ts); a new model adds its four columns here.
-- The platform leaves the key: no report reads it from these tables (the ad rollup keeps it), and without it a
-- day's key and figures fit in the 32 columns an index may hold, so attribution_daily and
-- attribution_by_source_periods keep their covering keys; attribution_periods, one column over, loses its own.
-- Each table is rebuilt from its rows by model, summed by group.

alter table attribution_daily rename to attribution_daily_by_model;
alter table attribution_daily_by_model
  rename constraint attribution_daily_pkey to attribution_daily_by_model_pkey;
create table attribution_daily (
  store_id                 text not null,
  day                      date not null,
  goal                     text not null,
  channel                  text not null,
  source                   text not null,
  medium                   text not null,
  campaign                 text not null,
  landing_page             text not null,
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
  constraint attribution_daily_pkey
    primary key (store_id, goal, day, channel, source, medium, campaign, landing_page)
    include (
      weight_first, new_weight_first, value_micros_first, cogs_micros_first,
      weight_last, new_weight_last, value_micros_last, cogs_micros_last,
      weight_linear, new_weight_linear, value_micros_linear, cogs_micros_linear,
      weight_position, new_weight_position, value_micros_position, cogs_micros_position,
      weight_time_decay, new_weight_time_decay, value_micros_time_decay, cogs_micros_time_decay,
      weight_data_driven, new_weight_data_driven, value_micros_data_driven, cogs_micros_data_driven
    )
) with (fillfactor = 80);

insert into attribution_daily
select store_id, day, goal, channel, source, medium, campaign, landing_page,
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
from attribution_daily_by_model
group by store_id, day, goal, channel, source, medium, campaign, landing_page;
drop table attribution_daily_by_model;

alter table attribution_by_source rename to attribution_by_source_by_model;
alter table attribution_by_source_by_model
  rename constraint attribution_by_source_pkey to attribution_by_source_by_model_pkey;
create table attribution_by_source (
  store_id                 text not null,
  day                      date not null,
  goal                     text not null,
  channel                  text not null,
  source                   text not null,
  medium                   text not null,
  campaign                 text not null,
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
  constraint attribution_by_source_pkey
    primary key (store_id, goal, day, channel, source, medium, campaign)
) with (fillfactor = 80);

insert into attribution_by_source
select store_id, day, goal, channel, source, medium, campaign,
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
from attribution_by_source_by_model
group by store_id, day, goal, channel, source, medium, campaign;
drop table attribution_by_source_by_model;

alter table attribution_periods rename to attribution_periods_by_model;
alter table attribution_periods_by_model
  rename constraint attribution_periods_pkey to attribution_periods_by_model_pkey;
create table attribution_periods (
  store_id                 text not null,
  grain                    text not null check (grain in ('week', 'month')),
  day                      date not null,
  goal                     text not null,
  channel                  text not null,
  source                   text not null,
  medium                   text not null,
  campaign                 text not null,
  landing_page             text not null,
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
  constraint attribution_periods_pkey
    primary key (store_id, goal, grain, day, channel, source, medium, campaign, landing_page)
) with (fillfactor = 80);

insert into attribution_periods
select store_id, grain, day, goal, channel, source, medium, campaign, landing_page,
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
from attribution_periods_by_model
group by store_id, grain, day, goal, channel, source, medium, campaign, landing_page;
drop table attribution_periods_by_model;

alter table attribution_by_source_periods rename to attribution_by_source_periods_by_model;
alter table attribution_by_source_periods_by_model
  rename constraint attribution_by_source_periods_pkey to attribution_by_source_periods_by_model_pkey;
create table attribution_by_source_periods (
  store_id                 text not null,
  grain                    text not null check (grain in ('week', 'month')),
  day                      date not null,
  goal                     text not null,
  channel                  text not null,
  source                   text not null,
  medium                   text not null,
  campaign                 text not null,
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
  constraint attribution_by_source_periods_pkey
    primary key (store_id, goal, grain, day, channel, source, medium, campaign)
    include (
      weight_first, new_weight_first, value_micros_first, cogs_micros_first,
      weight_last, new_weight_last, value_micros_last, cogs_micros_last,
      weight_linear, new_weight_linear, value_micros_linear, cogs_micros_linear,
      weight_position, new_weight_position, value_micros_position, cogs_micros_position,
      weight_time_decay, new_weight_time_decay, value_micros_time_decay, cogs_micros_time_decay,
      weight_data_driven, new_weight_data_driven, value_micros_data_driven, cogs_micros_data_driven
    )
) with (fillfactor = 80);

insert into attribution_by_source_periods
select store_id, grain, day, goal, channel, source, medium, campaign,
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
from attribution_by_source_periods_by_model
group by store_id, grain, day, goal, channel, source, medium, campaign;
drop table attribution_by_source_periods_by_model;
