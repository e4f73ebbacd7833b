/**
 * Statements issued together on one transaction (work computed beside the others' statements does that) run one
 * at a time in the order they were issued, and node-postgres is never handed a second statement while one is
 * executing (its own queue is deprecated); a failed statement aborts the transaction for the ones after it.
 */
import { Client } from 'pg';
import type { Db } from '../../storage/db';
import { testDb } from '../support/harness';

let db: Db;
beforeAll(() => {
  db = testDb();
});
afterAll(() => db.close());

/** How many statements node-postgres held (executing or queued) each time it was handed another one. */
function watchHandOffs(): { busyAtCall: number[]; restore: () => void } {
  const busyAtCall: number[] = [];
  const proto = Client.prototype as unknown as { query: (...args: unknown[]) => unknown };
  const original = proto.query;
  proto.query = function (this: { _activeQuery: unknown; _queryQueue: unknown[] }, ...args: unknown[]) {
    busyAtCall.push((this._activeQuery ? 1 : 0) + this._queryQueue.length);
    return original.apply(this, args);
  };
  return { busyAtCall, restore: () => void (proto.query = original) };
}

describe('statements of one transaction issued together', () => {
  it('run one at a time in the order issued, none handed to node-postgres while another executes', async () => {
    const watch = watchHandOffs();
    try {
      const order = await db.transaction('test.queue', async (tx) => {
        await tx('test.queue_table', 'create temporary table queue_order (n int, at timestamptz) on commit drop');
        // The first sleeps: with the statements handed over at once, the others would wait in node-postgres.
        const issued = [0, 1, 2, 3, 4].map((n) =>
          tx('test.queue_insert', `insert into queue_order select $1, clock_timestamp() from pg_sleep($2)`, [
            n,
            n === 0 ? 0.2 : 0,
          ]),
        );
        await Promise.all(issued);
        return tx<{ n: number }>('test.queue_read', 'select n from queue_order order by at, n');
      });
      expect(order.map((r) => r.n)).toEqual([0, 1, 2, 3, 4]);
      expect(watch.busyAtCall.length).toBeGreaterThanOrEqual(8); // begin, create, five inserts, read, commit
      expect(Math.max(...watch.busyAtCall)).toBe(0);
    } finally {
      watch.restore();
    }
  });

  it('fails the statements after a failed one as the transaction is aborted, and rolls back', async () => {
    const results = await db
      .transaction('test.queue_fail', async (tx) => {
        const settled = await Promise.allSettled([
          tx('test.queue_ok', 'select 1'),
          tx('test.queue_bad', 'select 1 / 0'),
          tx('test.queue_after', 'select 2'),
        ]);
        throw Object.assign(new Error('rolled back on purpose'), { settled });
      })
      .catch((err: { settled: PromiseSettledResult<unknown>[] }) => err.settled);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'rejected']);
    expect((results[1] as PromiseRejectedResult).reason).toMatchObject({ code: '22012' });
    expect((results[2] as PromiseRejectedResult).reason).toMatchObject({ code: '25P02' });
    // The connection went back to the pool usable: the next transaction on it commits.
    await expect(db.transaction('test.queue_next', (tx) => tx('test.queue_next', 'select 3 as n'))).resolves.toEqual([
      { n: 3 },
    ]);
  });
});
