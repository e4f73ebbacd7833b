/**
 * The one PostgreSQL module: a pool with an error listener, and tagged queries that carry a
 * `/* service:tag *\/` prefix and are timed. A query function is bound either to the pool (`db.query`) or to
 * one connection: a transaction (`db.transaction`) or a session (`db.session`) hands its callback a query
 * function bound to that connection, so no code ever holds a raw client. Shared by every app and script; no
 * domain logic lives here.
 */
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Pool, type PoolClient, type QueryResultRow } from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { plainArrayLiteral } from './pg-array';

export interface DbOptions {
  connectionString: string;
  /** application_name, also the service label of the query prefix. */
  service: string;
  max?: number;
  statementTimeoutMs?: number;
  onError?: (err: Error) => void;
  /**
   * Statements as named prepared statements, parsed and planned once per connection (docs/decisions.md,
   * Storage, "Prepared statements"). Needs a session per connection: not a pooler in transaction mode.
   */
  preparedStatements?: boolean;
  /** Called with the tag and seconds of every query (a histogram in the apps). */
  onQuery?: (tag: string, seconds: number, ok: boolean) => void;
}

/** A tagged, timed query (the tag names it in logs, metrics and pg_stat_activity); safe to pass around unbound. */
export interface Query {
  <R extends QueryResultRow = QueryResultRow>(tag: string, sql: string, params?: unknown[]): Promise<R[]>;
  /**
   * Runs `sql`, a `copy ... from stdin` statement, with `data` as its input (COPY text format, see
   * storage/pg-copy-text.ts; a buffer holds it as UTF-8); resolves with the rows copied. Timed and tagged like
   * a query.
   */
  copyFrom: (tag: string, sql: string, data: string | Buffer) => Promise<number>;
}

export interface TransactionOptions {
  isolation?: 'read committed' | 'repeatable read' | 'serializable';
  readOnly?: boolean;
}

export interface Db {
  service: string;
  /** A query on any pooled connection. */
  query: Query;
  /** Runs `fn` in one transaction: commit when it resolves, rollback when it throws. */
  transaction: <T>(tag: string, fn: (tx: Query) => Promise<T>, opts?: TransactionOptions) => Promise<T>;
  /**
   * Runs `fn` on one connection outside a transaction, for what must stay on one session (a session-level
   * advisory lock held across statements).
   */
  session: <T>(fn: (q: Query) => Promise<T>) => Promise<T>;
  /** Connections open and waiting, for metrics. */
  poolStats: () => { total: number; idle: number; waiting: number };
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

  async function timed<T>(tag: string, run: () => Promise<T>): Promise<T> {
    const started = process.hrtime.bigint();
    let ok = false;
    try {
      const result = await run();
      ok = true;
      return result;
    } finally {
      opts.onQuery?.(tag, Number(process.hrtime.bigint() - started) / 1e9, ok);
    }
  }

  /** COPY into a connection: `data` as one chunk of the statement's input. */
  async function copyInto(client: PoolClient, tag: string, sql: string, data: string | Buffer): Promise<number> {
    const stream = client.query(copyFrom(`/* ${opts.service}:${tag} */ ${sql}`));
    await pipeline(Readable.from([data]), stream);
    return stream.rowCount;
  }

  /**
   * Statements issued on one connection run one after another, in the order they were issued. Work computed
   * beside a transaction's statements issues its own before the last one has answered (the batch's analytics
   * plan, a repair's next chunk: pipeline/src/adapters/beside-statements.ts); node-postgres deprecates queueing
   * such statements itself, so the queue is here. A statement runs after a failed one too: in a transaction it
   * then fails as the transaction is aborted, as it would have with node-postgres's own queue.
   */
  const statementQueue = (): (<T>(run: () => Promise<T>) => Promise<T>) => {
    let last: Promise<unknown> = Promise.resolve();
    return (run) => {
      const turn = last.then(run, run);
      last = turn.catch(() => undefined);
      return turn;
    };
  };

  const statementName = opts.preparedStatements ? statementNames() : undefined;
  const boundTo = (on: Pool | PoolClient, inTurn?: <T>(run: () => Promise<T>) => Promise<T>): Query => {
    const queued = inTurn ?? (<T>(run: () => Promise<T>) => run());
    const query = <R extends QueryResultRow>(tag: string, sql: string, params: unknown[] = []): Promise<R[]> => {
      const text = `/* ${opts.service}:${tag} */ ${sql}`;
      // The parameters as they are when the statement is issued, not when its turn comes.
      let values: unknown[];
      try {
        values = params.map((p) => plainArrayLiteral(p) ?? p);
      } catch (err) {
        return Promise.reject(err instanceof Error ? err : new Error(String(err)));
      }
      const name = statementName?.(text);
      return queued(() =>
        timed(tag, async () => (await (name ? on.query<R>({ name, text, values }) : on.query<R>(text, values))).rows),
      );
    };
    const copy = (tag: string, sql: string, data: string | Buffer): Promise<number> =>
      queued(() =>
        timed(tag, () =>
          on === pool
            ? withConnection((_q, _inTurn, client) => copyInto(client, tag, sql, data))
            : copyInto(on as PoolClient, tag, sql, data),
        ),
      );
    return Object.assign(query, { copyFrom: copy });
  };

  /** One checked-out connection for `fn`, guarded against the server going away between two statements. */
  async function withConnection<T>(
    fn: (q: Query, inTurn: <R>(run: () => Promise<R>) => Promise<R>, client: PoolClient) => Promise<T>,
  ): Promise<T> {
    const client = await pool.connect();
    // A checked-out client whose server goes away between two queries emits 'error' on itself (the pool
    // listens only to idle clients): without a listener that would end the process. The next query fails
    // instead, and the work with it.
    const onClientError = (err: Error): void => opts.onError?.(err);
    client.on('error', onClientError);
    const inTurn = statementQueue();
    let broken: Error | undefined;
    try {
      return await fn(boundTo(client, inTurn), inTurn, client);
    } catch (err) {
      // A connection that failed as a connection is discarded rather than handed out again.
      if (isTransientDbError(err)) broken = err as Error;
      throw err;
    } finally {
      client.off('error', onClientError);
      client.release(broken);
    }
  }

  async function transaction<T>(tag: string, fn: (tx: Query) => Promise<T>, o: TransactionOptions = {}): Promise<T> {
    const mode = [o.isolation && `isolation level ${o.isolation}`, o.readOnly && 'read only'].filter(Boolean).join(' ');
    return withConnection(async (tx, inTurn, client) => {
      await tx(tag, `begin ${mode}`);
      try {
        const result = await fn(tx);
        await inTurn(() => client.query('commit'));
        return result;
      } catch (err) {
        await inTurn(() => client.query('rollback')).catch(() => undefined);
        throw err;
      }
    });
  }

  const session = <T>(fn: (q: Query) => Promise<T>): Promise<T> => withConnection((q) => fn(q));

  return {
    service: opts.service,
    query: boundTo(pool),
    transaction,
    session,
    poolStats: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
    close: () => pool.end(),
  };
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
  const { code, message, syscall } = err as { code?: unknown; message?: unknown; syscall?: unknown };
  if (typeof code === 'string' && (TRANSIENT_SQLSTATES.has(code) || TRANSIENT_NODE_CODES.has(code))) return true;
  // A prepared statement whose table changed its columns since (a migration beside a running daemon): the
  // connection is discarded, and a retry prepares the statement again on another.
  if (code === '0A000' && typeof message === 'string' && message.includes('cached plan must not change result type'))
    return true;
  // Over a Unix socket, a stopped server is a missing socket file.
  if (code === 'ENOENT' && syscall === 'connect') return true;
  return (
    typeof message === 'string' &&
    /Connection terminated|connection timeout|Client has encountered a connection error|timeout exceeded when trying to connect/i.test(
      message,
    )
  );
}

/** Most distinct statement texts a process prepares; texts beyond it are sent unnamed. */
const PREPARED_LIMIT = 500;

/**
 * The name of a statement's text: the same text always gets the same name, so a connection that prepared it runs
 * it by name. A text made with values in it would otherwise fill every backend with statements used once.
 */
export function statementNames(limit = PREPARED_LIMIT): (text: string) => string | undefined {
  const names = new Map<string, string>();
  return (text) => {
    let name = names.get(text);
    if (name === undefined) {
      if (names.size >= limit) return undefined;
      name = `s${names.size}`;
      names.set(text, name);
    }
    return name;
  };
}
