-- Up Migration
-- The read-only dashboard key, a fourth credential kind (docs/product.md, Credentials and tenancy).
alter table credentials drop constraint credentials_kind_check;
alter table credentials add constraint credentials_kind_check
  check (kind in ('api_key', 'ingest_key', 'access_token', 'dashboard_key'));

