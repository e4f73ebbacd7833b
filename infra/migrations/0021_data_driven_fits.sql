-- Up Migration
-- The data-driven model's fit per store and goal (docs/product.md, Attribution, "Data-driven"): the last fit
-- attempt's window and counts, and, when the counts passed the thresholds, the integer weights by channel (summing
-- to 10^9) that `data_driven` credits are computed under. `weights` is null when the goal is not fitted; `reason`
-- then says why.
create table data_driven_fits (
  store_id        text not null references stores (store_id) on delete cascade,
  goal            text not null,
  weights         jsonb,
  removal_effects jsonb,
  window_from     date not null,
  window_to       date not null,
  paths           integer not null,
  conversions     integer not null,
  reason          text,
  fitted_at       timestamptz not null default now(),
  primary key (store_id, goal)
);
