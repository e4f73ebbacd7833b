/**
 * The demo stream through the whole system:
 * - SIGKILL of the daemon at random points while it works through the demo stream, restarted each time:
 *   every event stored once and the views equal the reconciliation's recomputation (zero drift);
 * - `npm run replay -- --rebuild` of the demo stream gives views and event facts identical to the live run's,
 *   keeps the raw payloads as they were and prints its rate; a plain replay beside the live daemon changes no
 *   figure, and ends at the store's last message instead of waiting for a short fetch to expire;
 * - `npm run replay -- --file` publishes an NDJSON file into the stream, de-duplicated by event id.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import type { Db } from '../../storage/db';
import type { RunningApi } from '../../query-api/src/app/api';
import { connect } from '@nats-io/transport-node';
import { jetstreamManager } from '@nats-io/jetstream';
import { EVENTS_STREAM } from '../../contracts/src/subjects';
import { reconcileStore } from '../../pipeline/src/operations/reconcile';
import { replayStore } from '../../pipeline/src/operations/replay';
import { createLogger } from '../../runtime/logger';
import type { RunningPipeline } from '../../pipeline/src/app/daemon';
import { planDemo } from '../../scripts/demo/generate';
import { pushDemo } from '../../scripts/demo/push';
import {
  baseEnv,
  createTestStore,
  startTestApi,
  startTestPipeline,
  testDb,
  type TestStore,
  waitFor,
} from '../support/harness';
import { freePort } from '../support/free-port';
import { spawnPipeline } from '../support/processes';
import { pipelineAckWaitsMs, pipelineCaughtUp } from '../support/stream';
import { TEST_ACK_WAIT_MS, testEnv } from '../support/env';
import { ATTRIBUTION_DAILY } from '../../pipeline/src/domain/rollups/attribution';
import { byModel } from '../support/attribution-by-model';

const run = promisify(execFile);
const ROOT = path.join(__dirname, '..', '..');
let db: Db;
let api: RunningApi;

beforeAll(async () => {
  db = testDb();
  api = await startTestApi();
});
afterAll(async () => {
  await api.stop();
  await db.close();
});

/** Resolves once the pipeline has applied every message of the stream (test/support/stream.ts). */
async function caughtUp(): Promise<void> {
  const nc = await connect({ servers: testEnv.natsUrl });
  try {
    await pipelineCaughtUp(nc, undefined, 120_000);
  } finally {
    await nc.close();
  }
}

async function ackWaits(): Promise<number[]> {
  const nc = await connect({ servers: testEnv.natsUrl });
  try {
    return await pipelineAckWaitsMs(nc);
  } finally {
    await nc.close();
  }
}

const plan = (events: number, seed: number) =>
  planDemo({ events, seed, start: new Date(Date.now() - 20 * 86_400_000), days: 20 });

/** The store's events stored as facts (the views' progress) and as raw payloads (their own writer's). */
async function counts(storeId: string): Promise<{ facts: number; raw: number }> {
  const [r] = await db.query<{ facts: string; raw: string }>(
    'test.counts',
    `select (select count(*) from event_facts where store_id = $1) as facts,
            (select count(*) from raw_events where store_id = $1) as raw`,
    [storeId],
  );
  return { facts: Number(r!.facts), raw: Number(r!.raw) };
}

/** Everything the views hold for a store (person ids and digests included). */
async function views(storeId: string): Promise<Record<string, unknown[]>> {
  const q = (sql: string) => db.query('test.views', sql, [storeId]);
  return {
    attribution: await q(
      `select day, goal, model, channel, source, medium, campaign, landing_page, weight, new_weight, value_micros, cogs_micros
       from ${byModel(ATTRIBUTION_DAILY)} where store_id = $1 order by 1,2,3,4,5,6,7,8`,
    ),
    spend: await q(
      'select day, platform, channel, source, medium, campaign, spend_micros, impressions, clicks, conv_value_micros from ad_spend_daily where store_id = $1 order by 1,2,3,4,5,6',
    ),
    conversions: await q(
      'select goal, conversion_key, person_id, digest from conversions where store_id = $1 order by 1,2',
    ),
    sessions: await q(
      'select client_id, started_at, source, medium, campaign from sessions where store_id = $1 order by 1,2',
    ),
    clients: await q('select client_id, person_id from clients where store_id = $1 order by 1'),
  };
}

/** The store's raw payloads and event facts, as rows (a payload by its digest). */
async function storedEvents(storeId: string): Promise<Record<string, unknown[]>> {
  const q = (sql: string) => db.query('test.stored_events', sql, [storeId]);
  return {
    payloads: await q(
      'select event_id, client_id, name, occurred_at, received_at, stored_at, stream_seq, md5(payload::text) as payload from raw_events where store_id = $1 order by 1',
    ),
    // When a fact was stored is the time of its load, not part of what was loaded.
    facts: await q(
      "select event_id, md5((to_jsonb(f) - 'stored_at')::text) as row from event_facts f where store_id = $1 order by 1",
    ),
  };
}

it('survives SIGKILL at random points of the demo stream with zero drift', async () => {
  // A killed daemon's messages come back after the consumers' ack wait: the shared broker's short one, which no
  // earlier test file may have replaced (make run's stream setup applies the one-minute one of infra/nats).
  expect(await ackWaits()).toEqual([TEST_ACK_WAIT_MS]);
  const shop: TestStore = await createTestStore(db);
  const demo = plan(4000, 7);
  // Everything is accepted into the stream first; then the daemon works through it while being killed.
  await pushDemo({ apiUrl: api.url, ingestKey: shop.credentials.ingest_key, stream: demo });
  const expected = demo.summary.events;
  for (let kill = 0; kill < 3; kill++) {
    const child = spawnPipeline({ PIPELINE_HEALTH_PORT: String(await freePort()), PIPELINE_BATCH_MAX: '300' });
    // Killed mid-work, at a random point: once this run has stored 100 to 900 more events (a fixed delay would
    // often kill it during its start-up on a busy machine). Three kills take at most 2,700 of the 4,000.
    const before = (await counts(shop.store.store_id)).facts;
    const progress = 100 * (1 + Math.floor(Math.random() * 9));
    await waitFor(
      () => counts(shop.store.store_id),
      (c) => c.facts >= before + progress,
      60_000,
      25,
    )
      .catch((err: Error) => {
        throw new Error(`${err.message}\n${child.output().slice(-4000)}`);
      })
      .finally(() => child.proc.kill('SIGKILL'));
    await child.exited;
  }
  const child = spawnPipeline({ PIPELINE_HEALTH_PORT: String(await freePort()) });
  try {
    const final = await waitFor(
      () => counts(shop.store.store_id),
      (c) => c.facts >= expected && c.raw >= expected,
      120_000,
      250,
    ).catch((err: Error) => {
      throw new Error(`${err.message}\n${child.output().slice(-4000)}`);
    });
    // Each event once (both tables are keyed by its id, so more would be an event id not in the demo).
    expect(final).toEqual({ facts: expected, raw: expected });
    // Pushes (orders, products, ad spend) sit in the same partitions; wait until the consumers are idle.
    await waitFor(
      () =>
        db
          .query<{ n: string }>('test.orders', 'select count(*) as n from shop_orders where store_id = $1', [
            shop.store.store_id,
          ])
          .then((r) => Number(r[0]!.n)),
      (n) => n === new Set(demo.orders.map((o) => o.id)).size,
      60_000,
      250,
    );
    await caughtUp();
    const result = await reconcileStore(db, shop.store.store_id);
    expect(result.drift).toEqual([]);
    expect(result.conversions).toBeGreaterThan(100);
  } finally {
    child.proc.kill('SIGTERM');
    await child.exited;
  }
}, 240_000);

describe('replay', () => {
  let pipeline: RunningPipeline;
  let shop: TestStore;
  beforeAll(async () => {
    pipeline = await startTestPipeline();
    shop = await createTestStore(db);
    const demo = plan(3000, 11);
    await pushDemo({ apiUrl: api.url, ingestKey: shop.credentials.ingest_key, stream: demo });
    await waitFor(
      () => counts(shop.store.store_id),
      (c) => c.facts === demo.summary.events && c.raw === demo.summary.events,
      60_000,
      200,
    );
    // The pushes (orders, products, ad spend) too: the replays below compare with views that are complete.
    await caughtUp();
  });
  afterAll(() => pipeline.stop());

  const replay = (args: string[]) =>
    run(process.execPath, ['--import', 'tsx', 'scripts/replay.ts', '--store', shop.store.store_id, ...args], {
      cwd: ROOT,
      env: { ...process.env, ...baseEnv() },
    });

  it('changes no figure when replayed beside the live daemon', async () => {
    const before = await views(shop.store.store_id);
    const { stdout } = await replay([]);
    const summary = JSON.parse(stdout) as { processed: number; stored: number; duplicates: number };
    expect(summary.stored).toBe(0);
    expect(summary.processed).toBeGreaterThan(3000);
    expect(await views(shop.store.store_id)).toEqual(before);
  });

  it("ends at the store's last message without waiting for a short fetch to expire", async () => {
    // Fetches of 1,000 leave the last one short; with a minute's expiry, waiting for it would take a minute. The
    // stream's last message is another store's, so the replay must see that nothing more is pending for this one.
    const other = await createTestStore(db);
    await pushDemo({ apiUrl: api.url, ingestKey: other.credentials.ingest_key, stream: plan(50, 3) });
    const nc = await connect({ servers: testEnv.natsUrl });
    try {
      const before = await views(shop.store.store_id);
      const replayed = await replayStore(
        nc,
        db,
        { storeId: shop.store.store_id, batchSize: 1000, fetchExpiresMs: 60_000 },
        createLogger('replay', 'warn'),
      );
      expect(replayed.total % 1000).not.toBe(0);
      expect(replayed.processed).toBe(replayed.total);
      expect(replayed.seconds).toBeLessThan(30);
      expect(await views(shop.store.store_id)).toEqual(before);
    } finally {
      await nc.close();
    }
  }, 90_000);

  it('sends nats-server no acknowledgement for what it replays: its ordered consumer takes none', async () => {
    const nc = await connect({ servers: testEnv.natsUrl });
    try {
      const replayed = await replayStore(
        nc,
        db,
        { storeId: shop.store.store_id, batchSize: 1000 },
        createLogger('replay', 'warn'),
      );
      expect(replayed.processed).toBeGreaterThan(3000);
      // What it publishes is its stream lookup, one lookup of each subject's first message, the consumer's creation
      // and one pull request per fetch.
      const published = nc.stats().outMsgs;
      const jsm = await jetstreamManager(nc);
      const info = await jsm.streams.info(EVENTS_STREAM, { subjects_filter: `ev.*.${shop.store.store_id}.*` });
      const subjects = Object.keys(info.state.subjects ?? {}).length;
      expect(subjects).toBeGreaterThan(0);
      expect(published - subjects).toBeLessThan(replayed.processed / 100);
    } finally {
      await nc.close();
    }
  });

  it('rebuilds views identical to the live run and prints its rate', async () => {
    const id = shop.store.store_id;
    const before = await views(id);
    const stored = await storedEvents(id);
    expect((before.conversions ?? []).length).toBeGreaterThan(50);
    expect(stored.facts!.length).toBe(stored.payloads!.length);
    // The payload of an event the stream no longer holds (older than its retention): the rebuild stores no facts
    // for it, so it drops the payload as well, which nothing would show any more.
    await db.query(
      'test.payload_without_stream',
      `insert into raw_events (store_id, event_id, client_id, name, occurred_at, received_at, stream_seq, payload)
       select store_id, 'older-than-the-stream', client_id, name, occurred_at, received_at, 0, payload
       from raw_events where store_id = $1 limit 1`,
      [id],
    );
    const { stdout } = await replay(['--rebuild']);
    const summary = JSON.parse(stdout) as {
      mode: string;
      loadedBy: string;
      stored: number;
      payloadsDropped: number;
      events_per_s: number;
    };
    expect(summary.mode).toBe('rebuild');
    expect(summary.loadedBy).toBe('bulk');
    expect(summary.events_per_s).toBeGreaterThan(0);
    expect(summary.stored).toBe(stored.facts!.length);
    expect(summary.payloadsDropped).toBe(1);
    expect(await views(id)).toEqual(before);
    // The payloads are kept as they were (stored_at included), not deleted and written again; the facts are
    // derived again, equal to the live run's.
    expect(await storedEvents(id)).toEqual(stored);
    expect((await reconcileStore(db, id)).driftCount).toBe(0);
  });

  it('repairs in many chunks, each recomputed beside the writes of the one before, to the same views', async () => {
    const before = await views(shop.store.store_id);
    // Chunks of 20 persons: the repair recomputes each next chunk while the current one's rows are written.
    const repaired = await reconcileStore(db, shop.store.store_id, { repair: true, chunk: 20 });
    expect(repaired.persons).toBeGreaterThan(100);
    expect(await views(shop.store.store_id)).toEqual(before);
    expect((await reconcileStore(db, shop.store.store_id)).driftCount).toBe(0);
  });

  it('publishes an NDJSON file into the stream, once per event id', async () => {
    const other = await createTestStore(db);
    const file = path.join(testEnv.dataDir, 'replay-events.ndjson');
    const events = [...plan(300, 5).events()];
    fs.writeFileSync(file, events.map((e) => JSON.stringify(e)).join('\n') + '\n{not json}\n');
    const publish = () =>
      run(process.execPath, ['--import', 'tsx', 'scripts/replay.ts', '--store', other.store.store_id, '--file', file], {
        cwd: ROOT,
        env: { ...process.env, ...baseEnv() },
      });
    // Exit code 1: one line was rejected (named on stderr), the rest published.
    const first = await publish().catch((e: { code: number; stdout: string; stderr: string }) => e);
    expect((first as { code?: number }).code).toBe(1);
    expect((first as { stderr: string }).stderr).toContain('"rejected_line":301');
    expect(JSON.parse((first as { stdout: string }).stdout)).toMatchObject({
      published: 300,
      duplicates: 0,
      rejected: 1,
    });
    const second = await publish().catch((e: { stdout: string }) => e);
    expect(JSON.parse(second.stdout)).toMatchObject({ published: 300, duplicates: 300 });
    await waitFor(
      () => counts(other.store.store_id),
      (c) => c.facts === 300 && c.raw === 300,
      30_000,
      200,
    );
    expect(await counts(other.store.store_id)).toEqual({ facts: 300, raw: 300 });
  });
});
