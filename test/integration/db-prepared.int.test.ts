/**
 * Prepared statements (the pipeline's pool, docs/decisions.md, Storage, "Prepared statements"): a statement's
 * text is parsed and planned once per connection and then run by name, with the same results as unnamed; a
 * table whose columns change under a prepared `select *` fails it as a transient error, the connection is
 * discarded, and the statement is prepared again on the next.
 */
import { createDb, type Db, isTransientDbError } from '../../storage/db';
import { testEnv } from '../support/env';

let db: Db;
beforeAll(() => {
  db = createDb({ connectionString: testEnv.databaseUrl, service: 'test-prepared', max: 1, preparedStatements: true });
});
afterAll(() => db.close());

/** The statements prepared on the session's connection (pg_prepared_statements is per session). */
const prepared = (): Promise<Array<{ statement: string }>> =>
  db.session((q) =>
    q<{ statement: string }>('test.prepared', 'select statement from pg_prepared_statements order by prepare_time'),
  );

it('runs a repeated statement by name, prepared once, with its results each time', async () => {
  for (const n of [1, 2, 3]) {
    const rows = await db.query<{ doubled: number }>('test.double', 'select $1::int * 2 as doubled', [n]);
    expect(rows).toEqual([{ doubled: n * 2 }]);
  }
  const statements = (await prepared()).map((p) => p.statement).filter((s) => s.includes('test.double'));
  expect(statements).toHaveLength(1);
});

it('recovers when the table of a prepared statement changes its columns', async () => {
  await db.query('test.create', 'create table if not exists prepared_shape (a int)');
  await db.query('test.fill', 'insert into prepared_shape values (1)');
  const read = () => db.transaction('test.read', (tx) => tx('test.read_all', 'select * from prepared_shape'));
  expect(await read()).toEqual([{ a: 1 }]);
  await db.query('test.alter', 'alter table prepared_shape add column b int default 7');
  // The one connection still holds the plan of the old shape: that read fails, transiently.
  const err = await read().then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).not.toBeNull();
  expect(isTransientDbError(err)).toBe(true);
  // The connection was discarded: the next read prepares the statement again and sees the new column.
  expect(await read()).toEqual([{ a: 1, b: 7 }]);
  await db.query('test.drop', 'drop table prepared_shape');
});
