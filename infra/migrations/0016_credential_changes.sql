-- Up Migration
-- The API trusts a verified credential for a while without asking the database, for as long as it listens on
-- this channel: any change to a credential or to a store (revocation, rotation, settings) is announced here,
-- so that the API forgets what it had verified (docs/decisions.md, Credentials and tenancy). A trigger, so that
-- every writer announces it: the CLI, an operator's SQL.
create function announce_credential_change() returns trigger language plpgsql as $$
begin
  -- The store id, or '' for a truncation, which names no row.
  perform pg_notify('credential_changes', coalesce(new.store_id, old.store_id, ''));
  return null;
end;
$$;

create trigger credentials_announce_change after update or delete on credentials
  for each row execute function announce_credential_change();
create trigger stores_announce_change after update or delete on stores
  for each row execute function announce_credential_change();
create trigger credentials_announce_truncate after truncate on credentials
  for each statement execute function announce_credential_change();
create trigger stores_announce_truncate after truncate on stores
  for each statement execute function announce_credential_change();
