-- Up Migration
-- Web, landing-page and product analytics (docs/product.md, Analytics; the storage is explained in
-- docs/decisions.md, Analytics). Counts of visitors and sessions, maintained in the batch transaction from
-- per-person contributions, like the attribution rollups from the credits. The new views start empty for the
-- data already stored: `npm run reconcile -- --store <id> --repair` fills them (docs/operations.md).

-- FACTS ------------------------------------------------------------------------------------------------

-- Product lines of events and orders: [[product id, variant id, quantity, line amount in cents as sent], ...].
alter table event_facts add column items jsonb not null default '[]';
alter table order_facts add column items jsonb not null default '[]';

-- What the stored raw events and orders say about their products (events whose raw payload retention has
-- pruned keep no product lines; `replay --rebuild` within the stream's retention restores them).
update event_facts f set items = x.items
from (
  select r.store_id, r.event_id,
    case r.name
      when 'product_viewed' then jsonb_build_array(jsonb_build_array(
        r.payload::jsonb #>> '{data,productVariant,product,id}', r.payload::jsonb #>> '{data,productVariant,id}', 1,
        greatest(0, round((r.payload::jsonb #>> '{data,productVariant,price,amount}')::numeric * 100))))
      when 'product_added_to_cart' then jsonb_build_array(jsonb_build_array(
        r.payload::jsonb #>> '{data,cartLine,merchandise,product,id}', r.payload::jsonb #>> '{data,cartLine,merchandise,id}',
        (r.payload::jsonb #>> '{data,cartLine,quantity}')::numeric,
        greatest(0, round((r.payload::jsonb #>> '{data,cartLine,cost,totalAmount,amount}')::numeric * 100))))
      else (
        select coalesce(jsonb_agg(jsonb_build_array(
                 li #>> '{variant,product,id}', li #>> '{variant,id}', (li ->> 'quantity')::numeric,
                 greatest(0, round(coalesce((li #>> '{finalLinePrice,amount}')::numeric,
                                            (li #>> '{variant,price,amount}')::numeric * (li ->> 'quantity')::numeric) * 100)))
               order by ord), '[]')
        from jsonb_array_elements(r.payload::jsonb #> '{data,checkout,lineItems}') with ordinality as l(li, ord))
    end as items
  from raw_events r
  where r.name in ('product_viewed', 'product_added_to_cart', 'checkout_started', 'checkout_contact_info_submitted',
                   'checkout_address_info_submitted', 'checkout_shipping_info_submitted', 'payment_info_submitted',
                   'checkout_completed')
) x
where f.store_id = x.store_id and f.event_id = x.event_id and x.items is not null;

update order_facts f set items = x.items
from (
  select o.store_id, o.order_id,
    (select coalesce(jsonb_agg(jsonb_build_array(
              li ->> 'product_id', coalesce(li ->> 'variant_id', ''), (li ->> 'quantity')::numeric,
              greatest(0, round((li ->> 'price')::numeric * (li ->> 'quantity')::numeric * 100)))
            order by ord) filter (where coalesce(li ->> 'product_id', '') <> ''), '[]')
     from jsonb_array_elements(o.payload -> 'line_items') with ordinality as l(li, ord)) as items
  from shop_orders o
) x
where f.store_id = x.store_id and f.order_id = x.order_id;

-- Product names and images as the storefront events show them (the product push, when there is one, wins in
-- the reports). The latest event of each product wins.
create table product_info (
  store_id     text not null,
  product_id   text not null,
  title        text not null,
  vendor       text not null,
  product_type text not null,
  image_src    text not null,
  seen_at      timestamptz not null,
  primary key (store_id, product_id)
);

insert into product_info (store_id, product_id, title, vendor, product_type, image_src, seen_at)
select distinct on (store_id, product_id) store_id, product_id, title, vendor, product_type, image_src, seen_at
from (
  select r.store_id, r.occurred_at as seen_at, v #>> '{product,id}' as product_id,
         left(trim(coalesce(v #>> '{product,title}', '')), 500) as title,
         left(trim(coalesce(v #>> '{product,vendor}', '')), 500) as vendor,
         left(trim(coalesce(v #>> '{product,type}', '')), 500) as product_type,
         left(trim(coalesce(v #>> '{image,src}', '')), 500) as image_src
  from raw_events r,
       lateral (
         select r.payload::jsonb #> '{data,productVariant}' as v where r.name = 'product_viewed'
         union all select r.payload::jsonb #> '{data,cartLine,merchandise}' where r.name = 'product_added_to_cart'
         union all select li -> 'variant' from jsonb_array_elements(
           case when r.name in ('checkout_started', 'checkout_completed') then r.payload::jsonb #> '{data,checkout,lineItems}'
                else '[]'::jsonb end) as li
       ) vs
  where r.name in ('product_viewed', 'product_added_to_cart', 'checkout_started', 'checkout_completed')
) p
where product_id is not null
order by store_id, product_id, seen_at desc;

-- VIEWS: per-person contributions -------------------------------------------------------------------------

-- Each person's sessions by day (store time zone) and touchpoint: what the person adds to the web rollups.
-- `level` is the deepest funnel step its sessions reached (0 visit, 1 product view, 2 add to cart,
-- 3 checkout, 4 payment info, 5 purchase); `event_counts` counts its events by kind, in the order of the
-- fourteen kinds (contracts EVENT_NAMES); `new_users` is 1 on the row of the person's first session.
create table web_person_days (
  store_id         text not null,
  person_id        text not null,
  day              date not null,
  channel          text not null,
  source           text not null,
  medium           text not null,
  campaign         text not null,
  landing_page     text not null,
  sessions         integer not null,
  events           integer not null,
  engaged_sessions integer not null,
  new_users        integer not null,
  level            smallint not null,
  event_counts     integer[] not null,
  primary key (store_id, person_id, day, channel, source, medium, campaign, landing_page)
);
create index web_person_days_landing_idx on web_person_days (store_id, landing_page text_pattern_ops, day);

-- Each person's product activity by day: views, add-to-carts and checkouts by the day of the event,
-- purchases (units, revenue, cost of goods) by the day of the purchase.
create table product_person_days (
  store_id               text not null,
  person_id              text not null,
  day                    date not null,
  product_id             text not null,
  views                  integer not null,
  add_to_cart            integer not null,
  checkouts              integer not null,
  purchases              integer not null,
  units                  bigint not null,
  revenue_micros         bigint not null,
  cogs_micros            bigint not null,
  new_customer_purchases integer not null,
  primary key (store_id, person_id, day, product_id)
);

-- Each person's purchase credits split by product, per model and touchpoint: weight in millionths of a
-- conversion, units in millionths of a unit.
create table product_person_credits (
  store_id     text not null,
  person_id    text not null,
  day          date not null,
  model        text not null,
  product_id   text not null,
  channel      text not null,
  source       text not null,
  medium       text not null,
  campaign     text not null,
  landing_page text not null,
  weight       bigint not null,
  value_micros bigint not null,
  units        bigint not null,
  primary key (store_id, person_id, day, model, product_id, channel, source, medium, campaign, landing_page)
);

-- VIEWS: rollups ------------------------------------------------------------------------------------------

-- Sessions by day and touchpoint (additive figures).
create table web_daily (
  store_id         text not null,
  day              date not null,
  channel          text not null,
  source           text not null,
  medium           text not null,
  campaign         text not null,
  landing_page     text not null,
  sessions         bigint not null,
  events           bigint not null,
  engaged_sessions bigint not null,
  new_users        bigint not null,
  primary key (store_id, day, channel, source, medium, campaign, landing_page)
);

-- Distinct persons, exactly, for any range of days: for each set of dimensions `dims` (a bit per dimension:
-- channel 1, source 2, medium 4, campaign 8, landing page 16; the others ""), a person active in a group on
-- a day is counted on the row of (that day, the previous day it was active in the group, or -infinity). The
-- persons of a group over [s, e) are the rows with s <= day < e and prev_day < s. One count per funnel step
-- (a person counts in a step on the days one of its sessions reached it or a later step).
create table web_users (
  store_id           text not null,
  dims               smallint not null,
  day                date not null,
  channel            text not null,
  source             text not null,
  medium             text not null,
  campaign           text not null,
  landing_page       text not null,
  prev_day           date not null,
  users              integer not null,
  product_view_users integer not null,
  atc_users          integer not null,
  checkout_users     integer not null,
  payment_info_users integer not null,
  purchase_users     integer not null,
  primary key (store_id, dims, day, channel, source, medium, campaign, landing_page, prev_day)
);

-- Product activity by day (additive figures).
create table product_daily (
  store_id               text not null,
  day                    date not null,
  product_id             text not null,
  views                  bigint not null,
  add_to_cart            bigint not null,
  checkouts              bigint not null,
  purchases              bigint not null,
  units                  bigint not null,
  revenue_micros         bigint not null,
  cogs_micros            bigint not null,
  new_customer_purchases bigint not null,
  primary key (store_id, day, product_id)
);

-- Distinct persons who viewed or added a product to the cart, as web_users counts them; product "" stands
-- for any product.
create table product_users (
  store_id          text not null,
  day               date not null,
  product_id        text not null,
  prev_day          date not null,
  view_users        integer not null,
  add_to_cart_users integer not null,
  primary key (store_id, day, product_id, prev_day)
);

-- Purchase credits by product, model, day of the purchase and touchpoint.
create table product_credits_daily (
  store_id     text not null,
  day          date not null,
  model        text not null,
  product_id   text not null,
  channel      text not null,
  source       text not null,
  medium       text not null,
  campaign     text not null,
  landing_page text not null,
  weight       bigint not null,
  value_micros bigint not null,
  units        bigint not null,
  primary key (store_id, model, day, product_id, channel, source, medium, campaign, landing_page)
);

-- Influencer reports group the store's links by creator.
create index tracking_links_creator_idx on tracking_links (store_id, creator) where creator <> '';
