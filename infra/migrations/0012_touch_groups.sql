-- Up Migration
-- The web rollups keyed by a touchpoint group id instead of five texts (docs/decisions.md, Analytics,
-- touch groups). A funnel report over 90 days sums tens of thousands of rollup rows; grouping them by one
-- bigint of narrow rows and looking the texts up once per group costs a fraction of grouping the texts.

-- The id of a group: the first 64 bits of the MD5 of the five values, each preceded by its length in bytes.
-- The pipeline computes the same in TypeScript (pipeline/src/adapters/touch-group-id.ts).
create function touch_group_id(channel text, source text, medium text, campaign text, landing_page text)
returns bigint
language sql immutable strict parallel safe
return ('x' || left(md5(
  octet_length(channel) || ':' || channel || octet_length(source) || ':' || source ||
  octet_length(medium) || ':' || medium || octet_length(campaign) || ':' || campaign ||
  octet_length(landing_page) || ':' || landing_page), 16))::bit(64)::bigint;

-- Each group a store's web rollups name, once. Written in the batch transaction that first names the group;
-- never deleted (a group that no longer has rows costs one small row).
create table touch_groups (
  store_id     text not null,
  group_id     bigint not null,
  channel      text not null,
  source       text not null,
  medium       text not null,
  campaign     text not null,
  landing_page text not null,
  primary key (store_id, group_id)
);

insert into touch_groups
select distinct store_id, touch_group_id(channel, source, medium, campaign, landing_page),
       channel, source, medium, campaign, landing_page
from (select store_id, channel, source, medium, campaign, landing_page from web_daily
      union
      select store_id, channel, source, medium, campaign, landing_page from web_users) g;

alter table web_daily rename to web_daily_by_text;
alter index web_daily_pkey rename to web_daily_by_text_pkey;
create table web_daily (
  store_id         text not null,
  day              date not null,
  group_id         bigint not null,
  sessions         bigint not null,
  events           bigint not null,
  engaged_sessions bigint not null,
  new_users        bigint not null,
  primary key (store_id, day, group_id)
);
insert into web_daily
select store_id, day, touch_group_id(channel, source, medium, campaign, landing_page),
       sessions, events, engaged_sessions, new_users
from web_daily_by_text;
drop table web_daily_by_text;

-- Distinct persons as before (the spans of 0010), per set of dimensions `dims`; the group's dimensions
-- outside the set are "" in its touch_groups row.
alter table web_users rename to web_users_by_text;
alter index web_users_pkey rename to web_users_by_text_pkey;
create table web_users (
  store_id           text not null,
  dims               smallint not null,
  day                date not null,
  group_id           bigint not null,
  prev_day           date not null,
  users              integer not null,
  product_view_users integer not null,
  atc_users          integer not null,
  checkout_users     integer not null,
  payment_info_users integer not null,
  purchase_users     integer not null,
  primary key (store_id, dims, day, group_id, prev_day)
);
insert into web_users
select store_id, dims, day, touch_group_id(channel, source, medium, campaign, landing_page), prev_day,
       users, product_view_users, atc_users, checkout_users, payment_info_users, purchase_users
from web_users_by_text;
drop table web_users_by_text;
