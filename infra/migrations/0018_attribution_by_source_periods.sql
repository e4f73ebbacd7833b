-- Up Migration
-- attribution_by_source summed by whole week and whole month, as attribution_periods is for attribution_daily
-- (docs/decisions.md, Storage, "Weeks and months"): reports that do not group by landing page read their range's
-- whole months and weeks here and only its edge days from attribution_by_source.
create table attribution_by_source_periods (
  store_id     text not null,
  grain        text not null check (grain in ('week', 'month')),
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
  constraint attribution_by_source_periods_pkey
    primary key (store_id, goal, model, grain, day, channel, source, medium, campaign, platform)
    include (weight, new_weight, value_micros, cogs_micros)
) with (fillfactor = 80);

insert into attribution_by_source_periods
select store_id, p.grain, p.day, goal, model, channel, source, medium, campaign, platform,
       sum(weight) as weight, sum(new_weight) as new_weight, sum(value_micros) as value_micros,
       sum(cogs_micros) as cogs_micros
from attribution_by_source a
-- Date arithmetic only, so no session time zone takes part: the Monday of the ISO week, the 1st of the month.
cross join lateral (values ('week', a.day - (extract(isodow from a.day)::int - 1)),
                           ('month', a.day - (extract(day from a.day)::int - 1))) as p (grain, day)
group by store_id, p.grain, p.day, goal, model, channel, source, medium, campaign, platform
having sum(weight) <> 0 or sum(new_weight) <> 0 or sum(value_micros) <> 0 or sum(cogs_micros) <> 0;
