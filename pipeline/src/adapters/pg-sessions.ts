/**
 * The `sessions` view of some clients made equal to their recomputed sessions (`diffSessions` decides which
 * rows differ; only those are deleted and inserted).
 */
import type { Query } from '../../../storage/db';
import { keyProbeSql } from '../../../storage/key-probe';
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

/** Makes the stored sessions of `clientIds` equal to `sessions`, touching only rows that differ. */
export async function writeSessions(
  q: Query,
  storeId: string,
  clientIds: readonly string[],
  sessions: readonly Session[],
): Promise<SessionDiff> {
  if (clientIds.length === 0) return { inserted: 0, deleted: 0 };
  const stored = await q<StoredSession>(
    'views.sessions_load',
    keyProbeSql({ select: LOADED, from: 'sessions', key: 'client_id' }),
    [storeId, clientIds],
  );
  const { deleted, inserted } = diffSessions(stored, sessions);
  if (deleted.length) {
    await q(
      'views.sessions_delete',
      `delete from sessions s using unnest($2::text[], $3::timestamptz[]) as d(client_id, started_at)
       where s.store_id = $1 and s.client_id = d.client_id and s.started_at = d.started_at`,
      [storeId, deleted.map((r) => r.client_id), deleted.map((r) => isoOf(r.started_at))],
    );
  }
  if (inserted.length) {
    const types = COLUMNS.map((c, i) => `$${i + 2}::${c === 'started_at' ? 'timestamptz' : 'text'}[]`);
    await q(
      'views.sessions_insert',
      `insert into sessions (store_id, ${COLUMNS.join(', ')}) select $1, * from unnest(${types.join(', ')})`,
      [storeId, ...COLUMNS.map((c) => inserted.map((r) => (c === 'started_at' ? isoOf(r.started_at) : r[c])))],
    );
  }
  return { inserted: inserted.length, deleted: deleted.length };
}
