-- Up Migration
-- The customer listing pages by numeric id (ids are digit strings up to 2^63-1).
create index shop_customers_numeric_id_idx on shop_customers (store_id, (customer_id::numeric));
