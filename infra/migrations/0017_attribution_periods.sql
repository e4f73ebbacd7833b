-- Up Migration
-- The attribution rollup summed by whole week and whole month (docs/decisions.md, Storage, "Weeks and months"):
-- a report grouped by landing page over 90 days reads its whole months and weeks here, a few rows per group,
-- and only the days at its edges from attribution_daily. `day` is the period's first day (a Monday for a week,
-- the 1st for a month) in the store's calendar, as attribution_daily's days are. Maintained from the same credit
-- deltas in the same transaction, and checked by the reconciliation. Keyed and filled like attribution_daily:
-- the key carries the figures for index-only scans, and each page keeps room for its rows' next versions.
create table attribution_periods (
  store_id     text not null,
  grain        text not null check (grain in ('week', 'month')),
  day          date not null,
  goal         text not null,
  model        text not null,
  channel      text not null,
  source       text not null,
  medium       text not null,
  campaign     text not null,
  landing_page text not null,
  platform     text not null,
  weight       bigint not null,
  new_weight   bigint not null,
  value_micros bigint not null,
  cogs_micros  bigint not null,
  constraint attribution_periods_pkey
    primary key (store_id, goal, model, grain, day, channel, source, medium, campaign, landing_page, platform)
    include (weight, new_weight, value_micros, cogs_micros)
) with (fillfactor = 80);

insert into attribution_periods
select store_id, p.grain, p.day, goal, model, channel, source, medium, campaign, landing_page, platform,
       sum(weight) as weight, sum(new_weight) as new_weight, sum(value_micros) as value_micros,
       sum(cogs_micros) as cogs_micros
from attribution_daily a
-- Date arithmetic only, so no session time zone takes part: the Monday of the ISO week, the 1st of the month.
cross join lateral (values ('week', a.day - (extract(isodow from a.day)::int - 1)),
                           ('month', a.day - (extract(day from a.day)::int - 1))) as p (grain, day)
group by store_id, p.grain, p.day, goal, model, channel, source, medium, campaign, landing_page, platform
having sum(weight) <> 0 or sum(new_weight) <> 0 or sum(value_micros) <> 0 or sum(cogs_micros) <> 0;
