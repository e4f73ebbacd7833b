/**
 * The raw payloads' writer (docs/decisions.md, Storage, "Raw payloads off the hot path"), after the views' commit:
 * each payload once however often its message comes, as the message carried it; several batches' payloads in one
 * write; none for a store that keeps none; a payload PostgreSQL refuses left out alone; none of an erased person,
 * whose message it hands back for deletion from the stream.
 */
import { createBatchWriter } from '../../pipeline/src/adapters/pg-batch-writer';
import { createRawPayloadWriter, type RawPayloadCounts } from '../../pipeline/src/adapters/pg-raw-payloads';
import { createViewMaintainer } from '../../pipeline/src/adapters/pg-view-maintainer';
import { erasePerson } from '../../pipeline/src/operations/erase-person';
import { silentLogger } from '../../runtime/logger';
import type { Db } from '../../storage/db';
import { batchItem } from '../support/batch-items';
import { createTestStore, testDb } from '../support/harness';
import { pageView } from '../support/journeys';
import { runScript } from '../support/processes';

let db: Db;

beforeAll(() => {
  db = testDb();
});
afterAll(() => db.close());

const payloads = (storeId: string) =>
  db.query<{ event_id: string; stream_seq: string; payload: unknown }>(
    'test.payloads',
    'select event_id, stream_seq, payload from raw_events where store_id = $1 order by event_id',
    [storeId],
  );

const at = (minutesAgo: number) => new Date(Date.now() - minutesAgo * 60_000).toISOString();

/** A writer whose counts of each write are kept. */
function writer(extra: Parameters<typeof createRawPayloadWriter>[1] = {}) {
  const counts: RawPayloadCounts[] = [];
  const w = createRawPayloadWriter(db, { ...extra, onCommitted: (c) => counts.push(c), retryBaseMs: 10 });
  return { w, counts };
}

it('stores each payload once, as the message carried it, whether it comes before or after its facts', async () => {
  const store = (await createTestStore(db)).store.store_id;
  const { w, counts } = writer();
  const events = [pageView({ client: 'r-1', at: at(30) }), pageView({ client: 'r-2', at: at(20) })];
  const items = events.map((e, i) => batchItem(store, 0, e.name, e, Date.now(), 1000 + i));

  // Before the views have the events, and twice in one write.
  await w.write([items[0]!, items[0]!]);
  // The views' batch with the writer: its messages wait for the payloads (the outcome's `durable`).
  const outcome = await createBatchWriter(db, createViewMaintainer(silentLogger()), { rawPayloads: w }).applyBatch(
    items,
  );
  expect(outcome).toMatchObject({ stored: 2, duplicates: 0 });
  await outcome.durable;
  // A replay, or a redelivery after a crash between the views' commit and the payloads': nothing stored twice.
  await w.write(items);
  expect(counts.map((c) => [c.stored, c.duplicate])).toEqual([
    [1, 1],
    [1, 1],
    [0, 2],
  ]);

  const rows = await payloads(store);
  expect(rows.map((r) => [r.event_id, r.stream_seq])).toEqual([
    [events[0]!.id, '1000'],
    [events[1]!.id, '1001'],
  ]);
  expect(rows[0]!.payload).toEqual(JSON.parse(JSON.stringify(events[0])));
});

it('writes what several batches queued meanwhile together, each batch settled when its payloads are', async () => {
  const store = (await createTestStore(db)).store.store_id;
  const { w, counts } = writer();
  const batches = [0, 1, 2, 3].map((b) =>
    [0, 1, 2].map((i) => {
      const e = pageView({ client: `q-${b}-${i}`, at: at(10) });
      return batchItem(store, 0, e.name, e);
    }),
  );
  await Promise.all(batches.map((b) => w.write(b)));
  await w.drain();
  // The first write starts at once; the three batches queued while it ran go in one more.
  expect(counts.map((c) => c.stored)).toEqual([3, 9]);
  expect(await payloads(store)).toHaveLength(12);
});

it('stores nothing for a store that keeps no payload, and says so', async () => {
  const store = (await createTestStore(db)).store.store_id;
  await db.query('test.none', 'update stores set raw_payloads_stored = false where store_id = $1', [store]);
  const { w, counts } = writer();
  const e = pageView({ client: 'n-1', at: at(5) });
  await w.write([batchItem(store, 0, e.name, e)]);
  expect(counts).toEqual([{ stored: 0, duplicate: 0, erased: 0, not_kept: 1 }]);
  expect(await payloads(store)).toEqual([]);
});

it('leaves out a payload PostgreSQL refuses for good, alone, and stores the rest of its write', async () => {
  const store = (await createTestStore(db)).store.store_id;
  const bad = pageView({ client: 'bad-1', at: at(5) });
  const good = [pageView({ client: 'good-1', at: at(5) }), pageView({ client: 'good-2', at: at(5) })];
  await db.query(
    'test.refuse',
    `create or replace function test_refuse_payload() returns trigger language plpgsql as $$
     begin
       if new.event_id = '${bad.id}' then raise exception 'refused in a test' using errcode = '22023'; end if;
       return new;
     end $$`,
  );
  await db.query(
    'test.refuse_trigger',
    'create trigger test_refuse_payload before insert on raw_events for each row execute function test_refuse_payload()',
  );
  try {
    const refused: string[] = [];
    const { w } = writer({
      onRefused: (item) => refused.push(item.decoded.kind === 'event' ? item.decoded.event.id : ''),
    });
    // Resolves: the refused payload would only be refused again, so its message is acked like the others.
    await w.write([...good, bad].map((e) => batchItem(store, 0, e.name, e)));
    expect(refused).toEqual([bad.id]);
    expect((await payloads(store)).map((r) => r.event_id).sort()).toEqual(good.map((e) => e.id).sort());
  } finally {
    await db.query('test.refuse_drop', 'drop trigger test_refuse_payload on raw_events');
  }
});

it("drops an erased person's message that was still on its way, and hands it back for deletion", async () => {
  const store = (await createTestStore(db)).store.store_id;
  const first = pageView({ client: 'gone-1', at: at(10) });
  await createBatchWriter(db, createViewMaintainer(silentLogger())).applyBatch([
    batchItem(store, 0, first.name, first),
  ]);
  await erasePerson(
    { db },
    {
      storeId: store,
      subject: { emails: [], customerIds: [], clientIds: ['gone-1'], orderIds: [] },
      source: 'cli',
      credential: 'test',
    },
  );
  const erasedSeqs: number[] = [];
  const { w, counts } = writer({ onErasedMessages: (s) => erasedSeqs.push(...s) });
  const late = pageView({ client: 'gone-1', at: at(9) });
  const other = pageView({ client: 'stays-1', at: at(9) });
  await w.write([
    batchItem(store, 0, late.name, late, Date.now(), 5001),
    batchItem(store, 0, other.name, other, Date.now(), 5002),
  ]);
  expect(counts).toEqual([{ stored: 1, duplicate: 0, erased: 1, not_kept: 0 }]);
  expect(erasedSeqs).toEqual([5001]);
  expect((await payloads(store)).map((r) => r.event_id)).toEqual([other.id]);
});

it('`retention --days none` turns the payloads off, then deletes every kept one, a few thousand at a time', async () => {
  const store = (await createTestStore(db)).store.store_id;
  const e = pageView({ client: 'many-1', at: at(5) });
  // More payloads than one delete takes (5,000), straight into the table.
  await db.query(
    'test.many_payloads',
    `insert into raw_events (store_id, event_id, client_id, name, occurred_at, received_at, stream_seq, payload)
     select $1, 'many-' || i, 'many-1', 'page_viewed', now(), now(), i, $2::json from generate_series(1, 5003) i`,
    [store, JSON.stringify(e)],
  );
  const run = await runScript('store.ts', ['retention', '--store', store, '--days', 'none']);
  expect(run.code).toBe(0);
  expect(JSON.parse(run.stdout)).toEqual({ store_id: store, raw_payloads_stored: false, raw_events_deleted: 5003 });
  expect(await payloads(store)).toEqual([]);
  const [row] = await db.query<{ kept: boolean }>(
    'test.kept',
    'select raw_payloads_stored as kept from stores where store_id = $1',
    [store],
  );
  expect(row!.kept).toBe(false);
});

it('rejects a write that keeps failing on a transient error, so that its messages come back, and says so', async () => {
  const store = (await createTestStore(db)).store.store_id;
  const e = pageView({ client: 'busy-1', at: at(5) });
  await db.query(
    'test.busy',
    `create or replace function test_busy_payload() returns trigger language plpgsql as $$
     begin
       if new.event_id = '${e.id}' then raise exception 'busy in a test' using errcode = '40001'; end if;
       return new;
     end $$`,
  );
  await db.query(
    'test.busy_trigger',
    'create trigger test_busy_payload before insert on raw_events for each row execute function test_busy_payload()',
  );
  const failed: number[] = [];
  const { w } = writer({ attempts: 2, onFailed: (_err, events) => failed.push(events) });
  try {
    await expect(w.write([batchItem(store, 0, e.name, e)])).rejects.toMatchObject({ code: '40001' });
    expect(failed).toEqual([1]);
    expect(await payloads(store)).toEqual([]);
  } finally {
    await db.query('test.busy_drop', 'drop trigger test_busy_payload on raw_events');
  }
  // Sent again once the database takes it: stored.
  await w.write([batchItem(store, 0, e.name, e)]);
  expect((await payloads(store)).map((r) => r.event_id)).toEqual([e.id]);
});
