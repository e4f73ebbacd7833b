/**
 * Scheduled jobs, each a plain function called directly: reconciliation of recent days reports
 * and repairs drift; retention deletes old raw payloads without changing any view, each store by its own
 * retention; housekeeping prunes old dead letters and expired tombstones; the job lock lets one process run a job at
 * a time.
 */
import type { Db } from '../../storage/db';
import { silentLogger } from '../../runtime/logger';
import type { RunningApi } from '../../query-api/src/app/api';
import type { RunningPipeline } from '../../pipeline/src/app/daemon';
import { createRawPayloadWriter } from '../../pipeline/src/adapters/pg-raw-payloads';
import { createBatchWriter } from '../../pipeline/src/adapters/pg-batch-writer';
import { createViewMaintainer } from '../../pipeline/src/adapters/pg-view-maintainer';
import { reconcileStore } from '../../pipeline/src/operations/reconcile';
import { pruneDeadLetters, pruneTombstones } from '../../pipeline/src/jobs/housekeeping';
import { reconcileRecentDays } from '../../pipeline/src/jobs/reconcile-recent';
import { pruneRawEvents } from '../../pipeline/src/jobs/retention';
import { startJobs, withJobLock } from '../../pipeline/src/jobs/scheduler';
import { batchItem } from '../support/batch-items';
import { createTestStore, startTestApi, startTestPipeline, testDb, waitFor, type TestStore } from '../support/harness';
import { addToCart, pageView, send } from '../support/journeys';

let db: Db;
let api: RunningApi;
let pipeline: RunningPipeline;
let shop: TestStore;

const DAY = 86_400_000;
const now = Date.now();
const recent = (days: number) => new Date(now - days * DAY).toISOString();

const oldEvents = [
  pageView({ client: 'J1', at: recent(40), url: 'https://shop.example/?utm_source=google&utm_medium=cpc' }),
  addToCart({ client: 'J1', at: recent(40) }, 11),
];
const recentEvents = [
  pageView({ client: 'J2', at: recent(1), url: 'https://shop.example/?utm_source=klaviyo&utm_medium=email' }),
  addToCart({ client: 'J2', at: recent(1) }, 22),
];

beforeAll(async () => {
  db = testDb();
  api = await startTestApi();
  pipeline = await startTestPipeline();
  shop = await createTestStore(db);
  await send(api.url, shop.credentials.ingest_key, db, shop.store.store_id, [...oldEvents, ...recentEvents]);
});
afterAll(async () => {
  await pipeline.stop();
  await api.stop();
  await db.close();
});

it('reconciles recent days: finds drift in them, repairs it, and ignores older days', async () => {
  const id = shop.store.store_id;
  const clean = await reconcileRecentDays(db, { days: 3, repair: true, now }, silentLogger());
  expect(clean.find((r) => r.storeId === id)).toMatchObject({ drift: 0, repaired: false });

  await db.query(
    'test.corrupt',
    'update attribution_daily set weight_last = weight_last + 7 where store_id = $1 and day >= current_date - 3',
    [id],
  );
  const found = await reconcileRecentDays(db, { days: 3, repair: true, now }, silentLogger());
  // One row holds the conversion's credits under every model.
  expect(found.find((r) => r.storeId === id)).toMatchObject({ drift: 1, repaired: true });
  expect((await reconcileStore(db, id)).driftCount).toBe(0);

  // Drift older than the window is not this job's business (the full reconciliation finds it).
  await db.query(
    'test.corrupt_old',
    'update attribution_daily set weight_last = weight_last + 1 where store_id = $1 and day < current_date - 30',
    [id],
  );
  const recentOnly = await reconcileRecentDays(db, { days: 3, repair: false, now }, silentLogger());
  expect(recentOnly.find((r) => r.storeId === id)!.drift).toBe(0);
  expect((await reconcileStore(db, id)).driftCount).toBe(1);
  await reconcileStore(db, id, { repair: true });
});

it('retention prunes old raw payloads and leaves every view as it was', async () => {
  const id = shop.store.store_id;
  const snapshot = () =>
    db.query(
      'test.snap',
      'select * from attribution_daily where store_id = $1 order by goal, day, channel, source, medium, campaign, landing_page',
      [id],
    );
  const before = await snapshot();
  await db.query(
    'test.age',
    "update raw_events set stored_at = now() - interval '100 days' where store_id = $1 and occurred_at < now() - interval '30 days'",
    [id],
  );
  const pruned = await pruneRawEvents(db, { olderThanDays: 90, now: Date.now(), batch: 1 });
  expect(pruned).toBeGreaterThanOrEqual(2);
  const left = await db.query('test.left', 'select event_id from raw_events where store_id = $1', [id]);
  expect(left).toHaveLength(2);
  expect(await snapshot()).toEqual(before);
  expect((await reconcileStore(db, id)).driftCount).toBe(0);
  expect(await pruneRawEvents(db, { olderThanDays: 0, now: Date.now() })).toBe(0);

  // The pruned events replayed (a stream read again from the start): their facts, kept by retention, make them
  // duplicates to the views' batches, so no view changes; the raw payloads' writer stores their payloads again.
  const writer = createBatchWriter(db, createViewMaintainer(silentLogger()));
  const items = oldEvents.map((e) => batchItem(id, 0, e.name, e));
  expect(await writer.applyBatch(items)).toMatchObject({ stored: 0, duplicates: 2 });
  expect(await snapshot()).toEqual(before);
  await createRawPayloadWriter(db).write(items);
  expect(await db.query('test.left', 'select event_id from raw_events where store_id = $1', [id])).toHaveLength(4);
  expect(await snapshot()).toEqual(before);
  expect((await reconcileStore(db, id)).driftCount).toBe(0);
});

it("a store's own retention wins over the deployment's: 0 keeps its payloads, 10 prunes those older", async () => {
  const keep = await createTestStore(db);
  const short = await createTestStore(db);
  for (const s of [keep, short])
    await send(api.url, s.credentials.ingest_key, db, s.store.store_id, [
      pageView({ client: `R-${s.store.store_id}`, at: recent(20) }),
      pageView({ client: `R-${s.store.store_id}`, at: recent(1) }),
    ]);
  await db.query('test.retention', 'update stores set raw_retention_days = $2 where store_id = $1', [
    keep.store.store_id,
    0,
  ]);
  await db.query('test.retention', 'update stores set raw_retention_days = $2 where store_id = $1', [
    short.store.store_id,
    10,
  ]);
  await db.query('test.age', `update raw_events set stored_at = occurred_at where store_id = any($1::text[])`, [
    [keep.store.store_id, short.store.store_id],
  ]);
  // The deployment keeps 90 days: only the short store's 20-day-old payload goes.
  expect(await pruneRawEvents(db, { olderThanDays: 90, now: Date.now() })).toBe(1);
  const left = async (s: TestStore) =>
    Number(
      (
        await db.query<{ n: string }>('test.left', 'select count(*) as n from raw_events where store_id = $1', [
          s.store.store_id,
        ])
      )[0]!.n,
    );
  expect([await left(keep), await left(short)]).toEqual([2, 1]);
  expect((await reconcileStore(db, short.store.store_id)).driftCount).toBe(0);
});

it('housekeeping expires tombstones of erased persons after their days', async () => {
  const id = shop.store.store_id;
  await db.query(
    'test.tombstones',
    `insert into erased_identifiers (store_id, digest, erased_at) values
       ($1, 'old-digest', now() - interval '31 days'), ($1, 'new-digest', now())`,
    [id],
  );
  expect(await pruneTombstones(db, { olderThanDays: 30, now: Date.now() })).toBe(1);
  expect(await db.query('test.tomb_left', 'select digest from erased_identifiers where store_id = $1', [id])).toEqual([
    { digest: 'new-digest' },
  ]);
});

it('housekeeping prunes old dead letters and old redriven webhook dead letters only', async () => {
  const id = shop.store.store_id;
  await db.query(
    'test.dl',
    `insert into dead_letters (store_id, stream_seq, subject, reason, payload, created_at) values
       ($1, 9000001, 'x', 'old', '{}', now() - interval '40 days'), ($1, 9000002, 'x', 'new', '{}', now())`,
    [id],
  );
  await db.query(
    'test.wdl',
    `insert into webhook_dead_letters (store_id, destination_id, webhook_id, event_name, body, attempts, last_error, created_at, redriven_at) values
       ($1, 'd', 'w1', 'Subscribe', '{}', 8, 'x', now() - interval '40 days', now() - interval '35 days'),
       ($1, 'd', 'w2', 'Subscribe', '{}', 8, 'x', now() - interval '40 days', null)`,
    [id],
  );
  const pruned = await pruneDeadLetters(db, { olderThanDays: 30, now: Date.now() });
  expect(pruned).toEqual({ events: 1, webhooks: 1 });
  expect(await db.query('test.dl_left', 'select reason from dead_letters where store_id = $1', [id])).toEqual([
    { reason: 'new' },
  ]);
  expect(
    await db.query('test.wdl_left', 'select webhook_id from webhook_dead_letters where store_id = $1', [id]),
  ).toEqual([{ webhook_id: 'w2' }]);
});

it('runs a job in one process at a time', async () => {
  let release: () => void = () => undefined;
  let holding: () => void = () => undefined;
  const held = new Promise<void>((r) => (holding = r));
  // The job's function is called only once its lock is taken: from `held` on, the first run holds the lock.
  const first = withJobLock(db, 'test-job', () => {
    holding();
    return new Promise<void>((r) => (release = r));
  });
  await held;
  const second = await withJobLock(db, 'test-job', () => Promise.resolve('ran'));
  expect(second.ran).toBe(false);
  release();
  expect((await first).ran).toBe(true);
  expect(await withJobLock(db, 'test-job', () => Promise.resolve('ran'))).toEqual({ ran: true, result: 'ran' });
});

/** A promise and the function that resolves it: the test decides when a job's run ends. */
function gate(): { opened: Promise<void>; open: () => void } {
  let open: () => void = () => undefined;
  const opened = new Promise<void>((r) => (open = r));
  return { opened, open };
}

it('schedules jobs with node-cron without overlapping runs, and waits for a run in progress on stop', async () => {
  // Each run waits for its gate, so a run lasts as long as the test wants: longer than the one-second period.
  const gates = [gate(), gate()];
  let runs = 0;
  let running = 0;
  let maxRunning = 0;
  const results: boolean[] = [];
  const jobs = startJobs(
    db,
    [
      {
        name: 'test-tick',
        cron: '* * * * * *', // every second (node-cron's optional seconds field)
        run: async () => {
          const mine = gates[runs++];
          maxRunning = Math.max(maxRunning, ++running);
          await mine?.opened;
          running--;
        },
      },
    ],
    silentLogger(),
    (_name, ok) => results.push(ok),
  );
  const [task] = jobs.tasks;
  let overlaps = 0;
  task!.on('execution:overlap', () => void overlaps++);
  const count = () => Promise.resolve({ runs, overlaps, results: results.length });

  await waitFor(count, (c) => c.runs === 1, 20_000);
  // node-cron announces a tick that came while the first run was in progress (and, noOverlap, skipped it).
  await waitFor(count, (c) => c.overlaps >= 1, 20_000);
  expect({ runs, running }).toEqual({ runs: 1, running: 1 });
  gates[0]!.open();
  await waitFor(count, (c) => c.results === 1 && c.runs === 2, 20_000);

  // Stop while the second run is in progress: once the task is destroyed, all stop() has left is to wait for the
  // run. waitFor polls on timers, so a stop() that did not wait would have resolved before it returns.
  let stopped = false;
  const stopping = jobs.stop().then(() => (stopped = true));
  await waitFor(
    () => Promise.resolve(task!.getStatus()),
    (status) => status === 'destroyed',
  );
  expect(stopped).toBe(false);
  gates[1]!.open();
  await stopping;
  expect(running).toBe(0); // stop() waited for the run in progress
  // Exactly the two runs the test let through, one at a time, both successful; none after the task was destroyed.
  expect(runs).toBe(2);
  expect(maxRunning).toBe(1);
  expect(results).toEqual([true, true]);
});
