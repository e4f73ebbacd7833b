/**
 * The one PostgreSQL module: a pool with an error listener, tagged queries that carry a
 * `/* service:tag *\/` prefix and are timed, and a transaction helper. Shared by the pipeline, the query
 * API and the scripts; no domain logic lives here.
 */
import { Pool, type PoolClient, type QueryResultRow } from 'pg';

export interface DbOptions {
  connectionString: string;
  /** application_name, also the service label of the query prefix. */
  service: string;
  max?: number;
  statementTimeoutMs?: number;
  onError?: (err: Error) => void;
  /** Called with the tag and seconds of every query (a histogram in the apps). */
  onQuery?: (tag: string, seconds: number, ok: boolean) => void;
}

export type Queryable = Pool | PoolClient;

export interface Db {
  pool: Pool;
  service: string;
  /** A tagged, timed query; safe to pass around unbound. */
  query: <R extends QueryResultRow = QueryResultRow>(
    tag: string,
    sql: string,
    params?: unknown[],
    on?: Queryable,
  ) => Promise<R[]>;
  transaction: <T>(tag: string, fn: (client: PoolClient) => Promise<T>) => Promise<T>;
  close: () => Promise<void>;
}

export function createDb(opts: DbOptions): Db {
  const pool = new Pool({
    connectionString: opts.connectionString,
    application_name: opts.service,
    max: opts.max ?? 10,
    statement_timeout: opts.statementTimeoutMs,
    connectionTimeoutMillis: 5000,
  });
  // An idle client that loses its connection emits on the pool; without a listener the process dies.
  pool.on('error', (err) => opts.onError?.(err));

  async function query<R extends QueryResultRow>(
    tag: string,
    sql: string,
    params: unknown[] = [],
    on?: Queryable,
  ): Promise<R[]> {
    const started = process.hrtime.bigint();
    let ok = false;
    try {
      const res = await (on ?? pool).query<R>(`/* ${opts.service}:${tag} */ ${sql}`, params);
      ok = true;
      return res.rows;
    } finally {
      opts.onQuery?.(tag, Number(process.hrtime.bigint() - started) / 1e9, ok);
    }
  }

  async function transaction<T>(tag: string, fn: (client: PoolClient) => Promise<T>): Promise<T> {
    const client = await pool.connect();
    // A checked-out client whose server goes away between two queries emits 'error' on itself (the pool
    // listens only to idle clients): without a listener that would end the process. The next query fails
    // instead, and the transaction with it.
    const onClientError = (err: Error): void => opts.onError?.(err);
    client.on('error', onClientError);
    let broken: Error | undefined;
    try {
      await client.query(`/* ${opts.service}:${tag} */ begin`);
      const result = await fn(client);
      await client.query('commit');
      return result;
    } catch (err) {
      await client.query('rollback').catch((rollbackErr: Error) => (broken = rollbackErr));
      throw err;
    } finally {
      client.off('error', onClientError);
      // A client that could not even roll back is discarded rather than handed out again.
      client.release(broken);
    }
  }

  return { pool, service: opts.service, query, transaction, close: () => pool.end() };
}

/** PostgreSQL error codes worth retrying: serialization failure, deadlock, connection trouble, shutdown. */
const TRANSIENT_SQLSTATES = new Set([
  '40001',
  '40P01',
  '57P01',
  '57P02',
  '57P03',
  '53300',
  '08000',
  '08003',
  '08006',
  '08001',
  '08004',
]);
const TRANSIENT_NODE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'ENOTFOUND', 'EAI_AGAIN']);

export function isTransientDbError(err: unknown): boolean {
  // Duck-typed: socket errors may come from another realm (a test VM), where `instanceof Error` fails.
  if (typeof err !== 'object' || err === null) return false;
  const { code, message } = err as { code?: unknown; message?: unknown };
  if (typeof code === 'string' && (TRANSIENT_SQLSTATES.has(code) || TRANSIENT_NODE_CODES.has(code))) return true;
  return (
    typeof message === 'string' &&
    /Connection terminated|connection timeout|Client has encountered a connection error|timeout exceeded when trying to connect/i.test(
      message,
    )
  );
}
