/**
 * A daemon operators can trust: /readyz turns 503 while PostgreSQL is stopped and 200 after it
 * is back, with no event lost in between; SIGTERM during load drains within the bound and nothing the
 * API acknowledged to a producer is lost.
 */
import { randomUUID } from 'node:crypto';
import { connect } from '@nats-io/transport-node';
import { jetstream } from '@nats-io/jetstream';
import { sampleEvent } from '../support/samples';
import { eventMsgId, eventSubject, partitionOf } from '../../contracts/src/subjects';
import type { Db } from '../../storage/db';
import { createTestStore, testDb, type TestStore, waitFor } from '../support/harness';
import { TEST_PARTITIONS, testEnv } from '../support/env';
import { freePort } from '../support/free-port';
import { spawnPipeline, spawnTs, type Child } from '../support/processes';
import { baseEnv } from '../support/harness';
import { startPostgresOnly, stopPostgresOnly } from '../support/local-services';

let db: Db;
let shop: TestStore;

beforeAll(async () => {
  db = testDb();
  shop = await createTestStore(db);
});
afterAll(() => db.close());

const pageView = (i: number) =>
  sampleEvent('page_viewed', {
    id: `lc-${randomUUID()}`,
    clientId: `lc-${i % 13}`,
    timestamp: new Date(Date.now() - 60_000 + i).toISOString(),
  });

async function storedCount(ids: string[]): Promise<number> {
  const [r] = await db.query<{ n: string }>(
    'test.count',
    'select count(*) as n from raw_events where store_id = $1 and event_id = any($2::text[])',
    [shop.store.store_id, ids],
  );
  return Number(r!.n);
}

async function readyz(port: number): Promise<{ status: number; body: { checks?: Record<string, { ok: boolean }> } }> {
  const res = await fetch(`http://127.0.0.1:${port}/readyz`);
  return { status: res.status, body: (await res.json()) as { checks?: Record<string, { ok: boolean }> } };
}

it('turns /readyz 503 while PostgreSQL is stopped (and the backlog over its bound) and 200 after, losing no event', async () => {
  const healthPort = await freePort();
  // A low lag bound, so that the backlog built while the database is down also shows in /readyz.
  const pipeline = spawnPipeline({ PIPELINE_HEALTH_PORT: String(healthPort), PIPELINE_READY_MAX_PENDING: '50' });
  try {
    await waitFor(
      () => readyz(healthPort).catch(() => ({ status: 0, body: {} })),
      (r) => r.status === 200,
      30_000,
      100,
    );
    const nc = await connect({ servers: testEnv.natsUrl });
    const js = jetstream(nc);
    const publish = async (n: number): Promise<string[]> => {
      const ids: string[] = [];
      for (let i = 0; i < n; i++) {
        const ev = pageView(i);
        ids.push(ev.id);
        await js.publish(
          eventSubject(partitionOf(shop.store.store_id, ev.clientId, TEST_PARTITIONS), shop.store.store_id, ev.name),
          JSON.stringify(ev),
          {
            msgID: eventMsgId(shop.store.store_id, ev.id),
          },
        );
      }
      return ids;
    };
    const before = await publish(50);
    await waitFor(
      () => storedCount(before),
      (n) => n === 50,
    );

    stopPostgresOnly(testEnv.dataDir);
    const down = await waitFor(
      () => readyz(healthPort),
      (r) => r.status === 503,
      10_000,
      100,
    );
    expect(down.body.checks?.postgres?.ok).toBe(false);
    const during = await publish(200); // accepted by the stream while the database is down
    const lagging = await waitFor(
      () => readyz(healthPort),
      (r) => r.body.checks?.consumers?.ok === false,
      15_000,
      200,
    );
    expect(lagging.status).toBe(503);

    startPostgresOnly(testEnv.dataDir, testEnv.pgPort);
    await waitFor(
      () => readyz(healthPort),
      (r) => r.status === 200,
      30_000,
      200,
    );
    await nc.close();
    await waitFor(
      () => storedCount(during),
      (n) => n === 200,
      60_000,
      200,
    );
    expect(await storedCount([...before, ...during])).toBe(250);
  } finally {
    pipeline.proc.kill('SIGTERM');
    await pipeline.exited;
  }
});

it('drains on SIGTERM under load within the bound, and loses nothing the API acknowledged', async () => {
  const apiPort = await freePort();
  const api = spawnTs(
    'query-api/src/app/server.ts',
    baseEnv({ PORT: String(apiPort), HOST: '127.0.0.1', LOG_LEVEL: 'warn' }),
  );
  const healthPort = await freePort();
  let pipeline: Child = spawnPipeline({
    PIPELINE_HEALTH_PORT: String(healthPort),
    PIPELINE_SHUTDOWN_TIMEOUT_MS: '5000',
  });
  const acknowledged: string[] = [];
  let producing = true;
  try {
    await waitFor(
      () =>
        fetch(`http://127.0.0.1:${apiPort}/readyz`).then(
          (r) => r.status,
          () => 0,
        ),
      (s) => s === 200,
      30_000,
      100,
    );
    // The daemon handles signals once started (its health server answers): a SIGTERM before that is the
    // default one, which kills it.
    await waitFor(
      () => readyz(healthPort).catch(() => ({ status: 0, body: {} })),
      (r) => r.status === 200,
      30_000,
      100,
    );
    const producer = (async () => {
      let i = 0;
      while (producing) {
        const batch = Array.from({ length: 50 }, () => pageView(i++));
        const res = await fetch(`http://127.0.0.1:${apiPort}/v2-4-2/api/events`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', 'X-Ingest-Key': shop.credentials.ingest_key },
          body: JSON.stringify(batch),
        }).catch(() => null);
        if (res?.status === 200) acknowledged.push(...batch.map((e) => e.id));
      }
    })();
    await waitFor(
      () => Promise.resolve(acknowledged.length),
      (n) => n >= 500,
      30_000,
      50,
    );

    // SIGTERM the pipeline mid-load: it stops pulling, commits and acks what it holds, exits 0. Its own watchdog
    // exits 1 when stopping overruns PIPELINE_SHUTDOWN_TIMEOUT_MS by 5 s (runtime/lifecycle.ts), so exit 0 also
    // says it kept to that; how long a drain takes is a figure of `npm run bench -- stop`.
    pipeline.proc.kill('SIGTERM');
    const exit = await pipeline.exited;
    expect(exit).toEqual({ code: 0, signal: null });

    // The API keeps accepting while the pipeline is away; then it is restarted and catches up.
    await waitFor(
      () => Promise.resolve(acknowledged.length),
      (n) => n >= 1000,
      30_000,
      50,
    );
    pipeline = spawnPipeline({ PIPELINE_HEALTH_PORT: String(await freePort()) });

    // SIGTERM the API mid-load too: in-flight requests finish, then it exits 0.
    api.proc.kill('SIGTERM');
    expect((await api.exited).code).toBe(0);
    producing = false;
    await producer;

    await waitFor(
      () => storedCount(acknowledged),
      (n) => n === acknowledged.length,
      60_000,
      200,
    );
    const [dupes] = await db.query<{ n: string }>(
      'test.dupes',
      'select count(*) - count(distinct event_id) as n from raw_events where store_id = $1',
      [shop.store.store_id],
    );
    expect(Number(dupes!.n)).toBe(0);
  } finally {
    producing = false;
    if (api.proc.exitCode === null) api.proc.kill('SIGTERM');
    pipeline.proc.kill('SIGTERM');
    await Promise.all([api.exited, pipeline.exited]);
  }
});
