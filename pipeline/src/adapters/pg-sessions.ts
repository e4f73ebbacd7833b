/**
 * The `sessions` view of some clients made equal to their recomputed sessions (`diffSessions` decides which
 * rows differ; only those are deleted and inserted).
 */
import type { Query } from '../../../storage/db';
import { probeKeysOfStores } from '../../../storage/key-probe';
import { SESSION_COLUMNS } from '../../../storage/schema';
import { diffSessions, type StoredSession } from '../domain/rollups/sessions';
import type { Session } from '../domain/sessionize';
import { epochMs } from './pg-person-facts';

/** The stored columns, in insert order (`started_at` a timestamptz, the others text). */
const COLUMNS: ReadonlyArray<keyof StoredSession> = SESSION_COLUMNS;
/** The columns as loaded: the start in epoch milliseconds, as `StoredSession` holds it. */
const LOADED = COLUMNS.map((c) => (c === 'started_at' ? `${epochMs(c)} as ${c}` : c)).join(', ');

const isoOf = (ms: number): string => new Date(ms).toISOString();

export interface SessionDiff {
  inserted: number;
  deleted: number;
}

/** The rows that make one store's stored sessions equal to its recomputed ones. */
export interface StoreSessionChange {
  storeId: string;
  deleted: readonly StoredSession[];
  inserted: readonly StoredSession[];
}

/** Makes the stored sessions of `clientIds` equal to `sessions`, touching only rows that differ. */
export async function writeSessions(
  q: Query,
  storeId: string,
  clientIds: readonly string[],
  sessions: readonly Session[],
): Promise<SessionDiff> {
  const [change] = (await planSessionsOfStores(q, [{ storeId, clientIds, sessions }])) as [StoreSessionChange];
  await writeSessionChanges(q, [change]);
  return { inserted: change.inserted.length, deleted: change.deleted.length };
}

/** One store's clients and their recomputed sessions. */
export interface StoreSessions {
  storeId: string;
  clientIds: readonly string[];
  sessions: readonly Session[];
}

/**
 * Loads the stored sessions of each store's clients, in one statement for all, and works out the rows that differ
 * from its recomputed sessions; the changes come in the stores' order.
 */
export async function planSessionsOfStores(q: Query, entries: readonly StoreSessions[]): Promise<StoreSessionChange[]> {
  const stored = await probeKeysOfStores<StoredSession>(
    q,
    'views.sessions_load',
    { select: LOADED, from: 'sessions', key: 'client_id' },
    entries.map((e) => ({ storeId: e.storeId, keys: e.clientIds })),
  );
  return entries.map((e) => ({ storeId: e.storeId, ...diffSessions(stored.get(e.storeId)!, e.sessions) }));
}

/**
 * Applies the session changes of one or more stores: one delete and one insert for all of them (docs/decisions.md,
 * Storage, "A batch's stores written together").
 */
export async function writeSessionChanges(q: Query, changes: readonly StoreSessionChange[]): Promise<void> {
  const deleted = changes.flatMap((c) => c.deleted.map((row) => ({ storeId: c.storeId, row })));
  if (deleted.length) {
    await q(
      'views.sessions_delete',
      `delete from sessions s using unnest($1::text[], $2::text[], $3::timestamptz[]) as d(store_id, client_id, started_at)
       where s.store_id = d.store_id and s.client_id = d.client_id and s.started_at = d.started_at`,
      [deleted.map((d) => d.storeId), deleted.map((d) => d.row.client_id), deleted.map((d) => isoOf(d.row.started_at))],
    );
  }
  const inserted = changes.flatMap((c) => c.inserted.map((row) => ({ storeId: c.storeId, row })));
  if (inserted.length) {
    const types = COLUMNS.map((c, i) => `$${i + 2}::${c === 'started_at' ? 'timestamptz' : 'text'}[]`);
    await q(
      'views.sessions_insert',
      `insert into sessions (store_id, ${COLUMNS.join(', ')}) select * from unnest($1::text[], ${types.join(', ')})`,
      [
        inserted.map((i) => i.storeId),
        ...COLUMNS.map((c) => inserted.map(({ row }) => (c === 'started_at' ? isoOf(row.started_at) : row[c]))),
      ],
    );
  }
}
