/**
 * Scale-out: a three-node JetStream cluster on loopback with replicated streams and two pipeline workers,
 * each owning half of the partitions. While events flow, one NATS node and one worker are killed (SIGKILL)
 * and later restarted; at the end every event the API acknowledged is stored exactly once and the views
 * equal the reconciliation's recomputation. Two busy processes keep both cores loaded throughout, so the
 * daemons must ride out a slow machine and a slowly electing cluster.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { connect } from '@nats-io/transport-node';
import type { StorefrontEvent } from '../../contracts/src/events';
import type { Db } from '../../storage/db';
import { setupNats } from '../../infra/nats-setup';
import { reconcileStore } from '../../pipeline/src/operations/reconcile';
import { baseEnv, createTestStore, testDb, type TestStore, waitFor } from '../support/harness';
import { TEST_ACK_WAIT_MS, TEST_PARTITIONS, testEnv } from '../support/env';
import { freePort } from '../support/free-port';
import { pipelineCaughtUp } from '../support/stream';
import { burnCpu, spawnPipeline, spawnTs, type Child } from '../support/processes';
import { addToCart, checkoutCompleted, leadForm, pageView } from '../support/journeys';

const ROOT = path.join(__dirname, '..', '..');
let db: Db;
let shop: TestStore;
let clusterDir: string;
let clusterEnv: Record<string, string>;
let natsUrl: string;
let stopLoad: () => Promise<void> = () => Promise.resolve();

function cluster(script: 'start-cluster.sh' | 'stop-cluster.sh', extra: Record<string, string> = {}): string {
  return execFileSync('bash', [path.join(ROOT, 'infra/local', script)], {
    env: { ...process.env, ...clusterEnv, ...extra },
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  }).trim();
}

beforeAll(async () => {
  stopLoad = burnCpu(2);
  db = testDb();
  shop = await createTestStore(db);
  clusterDir = path.join(testEnv.dataDir, 'nats-cluster');
  fs.mkdirSync(clusterDir, { recursive: true });
  const ports = await Promise.all(Array.from({ length: 6 }, () => freePort()));
  clusterEnv = {
    DATA_DIR: clusterDir,
    CLUSTER_PORTS: ports.slice(0, 3).join(','),
    CLUSTER_ROUTE_PORTS: ports.slice(3).join(','),
  };
  natsUrl = cluster('start-cluster.sh');
  // Stream and consumers replicated on the three nodes (retried while the cluster elects its leader).
  await waitFor(
    async () => {
      try {
        const nc = await connect({ servers: natsUrl.split(',') });
        try {
          await setupNats(nc, { partitions: TEST_PARTITIONS, replicas: 3, ackWaitMs: TEST_ACK_WAIT_MS });
          return true;
        } finally {
          await nc.close();
        }
      } catch {
        return false;
      }
    },
    (ok) => ok,
    60_000,
    500,
  );
});

afterAll(async () => {
  await stopLoad();
  cluster('stop-cluster.sh');
  await db.close();
});

/** Events of a few persons: visits from several sources, carts, purchases, identity joins. */
function journeyEvents(i: number): StorefrontEvent[] {
  const t = (m: number) => new Date(Date.now() - 3600_000 + i * 1000 + m).toISOString();
  const c = `cl-${i % 40}`;
  const url = [
    'https://shop.example/?utm_source=google&utm_medium=cpc',
    'https://shop.example/',
    'https://shop.example/?utm_source=klaviyo&utm_medium=email',
  ][i % 3];
  const events: StorefrontEvent[] = [
    pageView({ client: c, at: t(0), url }),
    addToCart({ client: c, at: t(1) }, 10 + (i % 7)),
  ];
  if (i % 5 === 0) events.push(leadForm({ client: c, at: t(2) }, `p${i % 9}@example.com`));
  if (i % 6 === 0)
    events.push(
      checkoutCompleted(
        { client: c, at: t(3) },
        { orderId: String(700000 + i), token: `ct${i}`, amount: 30 + i, email: `p${i % 9}@example.com` },
      ),
    );
  return events;
}

it('keeps every acknowledged event exactly once and the views exact through a node and a worker crash', async () => {
  const apiPort = await freePort();
  const env = { NATS_URL: natsUrl };
  const api = spawnTs(
    'query-api/src/app/server.ts',
    baseEnv({ ...env, PORT: String(apiPort), HOST: '127.0.0.1', LOG_LEVEL: 'warn' }),
  );
  const half = `0-${TEST_PARTITIONS / 2 - 1}`;
  const other = `${TEST_PARTITIONS / 2}-${TEST_PARTITIONS - 1}`;
  const workerEnv = (partitions: string) => ({ ...env, PIPELINE_PARTITIONS: partitions, PIPELINE_HEALTH_PORT: '0' });
  let workerA: Child = spawnPipeline(workerEnv(half));
  const workerB: Child = spawnPipeline(workerEnv(other));
  const acknowledged = new Set<string>();
  let producing = true;
  let i = 0;
  try {
    await waitFor(
      () =>
        fetch(`http://127.0.0.1:${apiPort}/healthz`).then(
          (r) => r.status,
          () => 0,
        ),
      (s) => s === 200,
      30_000,
      100,
    );
    const producer = (async () => {
      while (producing) {
        const batch = journeyEvents(i++);
        const res = await fetch(`http://127.0.0.1:${apiPort}/v2-4-2/api/events`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', 'X-Ingest-Key': shop.credentials.ingest_key },
          body: JSON.stringify(batch),
        }).catch(() => null);
        if (res?.status === 200) for (const e of batch) acknowledged.add(e.id);
        else await new Promise((r) => setTimeout(r, 50));
      }
    })();
    await waitFor(
      () => Promise.resolve(acknowledged.size),
      (n) => n >= 200,
      60_000,
      50,
    );

    // Kill one NATS node and one worker while events flow.
    cluster('stop-cluster.sh', { CLUSTER_NODE: '2', SIGNAL: 'KILL' });
    workerA.proc.kill('SIGKILL');
    await workerA.exited;
    const atKill = acknowledged.size;
    await waitFor(
      () => Promise.resolve(acknowledged.size),
      (n) => n >= atKill + 200,
      60_000,
      50,
    );

    // Bring both back.
    cluster('start-cluster.sh', { CLUSTER_NODE: '2' });
    workerA = spawnPipeline(workerEnv(half));
    await waitFor(
      () => Promise.resolve(acknowledged.size),
      (n) => n >= atKill + 400,
      60_000,
      50,
    );
    producing = false;
    await producer;

    const ids = [...acknowledged];
    const stored = () =>
      db
        .query<{ total: string; distinct: string }>(
          'test.stored',
          'select count(*) as total, count(distinct event_id) as distinct from raw_events where store_id = $1 and event_id = any($2::text[])',
          [shop.store.store_id, ids],
        )
        .then((r) => ({ total: Number(r[0]!.total), distinct: Number(r[0]!.distinct) }));
    const final = await waitFor(stored, (s) => s.total >= ids.length, 90_000, 250).catch((err: Error) => {
      // Show what the daemons said: a failure here is about them.
      const tail = (c: Child) => c.output().slice(-3000);
      throw new Error(
        `${err.message}\n--- worker A ---\n${tail(workerA)}\n--- worker B ---\n${tail(workerB)}\n--- api ---\n${tail(api)}`,
      );
    });
    expect(final).toEqual({ total: ids.length, distinct: ids.length });
    // Redeliveries of what was in flight at the kills may still be on their way: compare with the recomputation
    // once every consumer has applied and acknowledged all it was given.
    const nc = await connect({ servers: natsUrl.split(',') });
    try {
      await pipelineCaughtUp(nc, undefined, 90_000);
    } finally {
      await nc.close();
    }
    const drift = await reconcileStore(db, shop.store.store_id);
    expect(drift.drift).toEqual([]);
    expect(drift.conversions).toBeGreaterThan(0);
  } finally {
    producing = false;
    api.proc.kill('SIGTERM');
    workerA.proc.kill('SIGTERM');
    workerB.proc.kill('SIGTERM');
    await Promise.all([api.exited, workerA.exited, workerB.exited]);
  }
});
