-- Up Migration
-- Raw payloads are written once and read whole (order journeys, webhook profiles): `json` keeps the text
-- as sent, which is about 40% cheaper to insert than `jsonb` at ~2 KB per event, and lz4 compresses it
-- faster than the default pglz. The JSON operators keep working.
alter table raw_events alter column payload type json using payload::json;
alter table raw_events alter column payload set compression lz4;
