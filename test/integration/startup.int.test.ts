/**
 * Start-up against dependencies that are not there yet: the three daemons are started while no broker
 * listens on their NATS port; nats-server only comes up 20 s later. Each daemon waits, says what it waits
 * for, and is then ready and working. Past STARTUP_TIMEOUT_MS a daemon gives up with the reason. The
 * pipeline daemon lowers its CPU priority as configured.
 */
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { connect } from '@nats-io/transport-node';
import { sampleEvent } from '../support/samples';
import type { Db } from '../../storage/db';
import { setupNats } from '../../infra/nats-setup';
import { baseEnv, createTestStore, testDb, type TestStore, waitFor } from '../support/harness';
import { TEST_ACK_WAIT_MS, TEST_PARTITIONS, testEnv } from '../support/env';
import { freePort } from '../support/free-port';
import { startNatsOnly } from '../support/local-services';
import { spawnPipeline, spawnTs, type Child } from '../support/processes';

const ROOT = path.join(__dirname, '..', '..');
let db: Db;
let shop: TestStore;

beforeAll(async () => {
  db = testDb();
  shop = await createTestStore(db);
});
afterAll(() => db.close());

const ready = (port: number) =>
  fetch(`http://127.0.0.1:${port}/readyz`).then(
    (r) => r.status,
    () => 0,
  );

it('daemons started before the broker wait for it (20 s), say why, then work', async () => {
  const natsPort = await freePort();
  const [apiPort, pipelinePort, webhookPort] = await Promise.all([freePort(), freePort(), freePort()]);
  const natsDir = path.join(testEnv.dataDir, `late-nats-${natsPort}`);
  fs.mkdirSync(natsDir, { recursive: true });
  const env = { NATS_URL: `nats://127.0.0.1:${natsPort}`, LOG_LEVEL: 'info', STARTUP_TIMEOUT_MS: '120000' };
  const daemons: Child[] = [
    spawnTs('query-api/src/app/server.ts', baseEnv({ ...env, PORT: String(apiPort), HOST: '127.0.0.1' })),
    spawnPipeline({ ...env, PIPELINE_HEALTH_PORT: String(pipelinePort), PIPELINE_JOBS: 'off' }),
    spawnTs('webhook-worker/src/app/main.ts', baseEnv({ ...env, WEBHOOK_HEALTH_PORT: String(webhookPort) })),
  ];
  try {
    // Each says what it waits for.
    await waitFor(
      () => Promise.resolve(daemons.map((d) => d.output().includes('waiting for NATS'))),
      (seen) => seen.every(Boolean),
      60_000,
      100,
    );
    const brokerAt = Date.now() + 20_000;
    while (Date.now() < brokerAt) {
      for (const d of daemons) expect(d.proc.exitCode).toBeNull();
      await new Promise((r) => setTimeout(r, 500));
    }

    startNatsOnly(natsDir, natsPort);
    const nc = await connect({ servers: env.NATS_URL });
    await setupNats(nc, { partitions: TEST_PARTITIONS, ackWaitMs: TEST_ACK_WAIT_MS });
    await nc.close();

    const statuses = await waitFor(
      () => Promise.all([apiPort, pipelinePort, webhookPort].map(ready)),
      (s) => s.every((x) => x === 200),
      90_000,
      250,
    ).catch((err: Error) => {
      throw new Error(`${err.message}\n${daemons.map((d) => d.output().slice(-2000)).join('\n---\n')}`);
    });
    expect(statuses).toEqual([200, 200, 200]);

    // And they work: an event goes in through the API and is stored by the pipeline.
    const event = sampleEvent('page_viewed', { id: `late-${randomUUID()}`, clientId: 'late-client' });
    const res = await fetch(`http://127.0.0.1:${apiPort}/v2-4-2/api/events`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'X-Ingest-Key': shop.credentials.ingest_key },
      body: JSON.stringify({ ...event, timestamp: new Date().toISOString() }),
    });
    expect(res.status).toBe(200);
    await waitFor(
      () =>
        db.query('test.late', 'select 1 from event_facts where store_id = $1 and event_id = $2', [
          shop.store.store_id,
          event.id,
        ]),
      (rows) => rows.length === 1,
      30_000,
    );
  } finally {
    for (const d of daemons) d.proc.kill('SIGTERM');
    await Promise.all(daemons.map((d) => d.exited));
    execFileSync('bash', [path.join(ROOT, 'infra/local/stop-all.sh')], { env: { ...process.env, DATA_DIR: natsDir } });
  }
}, 240_000);

it('a daemon gives up past STARTUP_TIMEOUT_MS and names what it waited for', async () => {
  const deadPort = await freePort();
  const pipeline = spawnPipeline({
    NATS_URL: `nats://127.0.0.1:${deadPort}`,
    STARTUP_TIMEOUT_MS: '2000',
    PIPELINE_HEALTH_PORT: '0',
  });
  const exit = await pipeline.exited;
  expect(exit.code).toBe(1);
  expect(pipeline.output()).toMatch(/NATS: still failing after \d+ s/);
});

it('the pipeline daemon runs at the CPU niceness it is given, so the API and PostgreSQL come first', async () => {
  const port = await freePort();
  const pipeline = spawnPipeline({ PIPELINE_HEALTH_PORT: String(port), PIPELINE_NICE: '7', PIPELINE_JOBS: 'off' });
  try {
    await waitFor(
      () => ready(port),
      (s) => s === 200,
      60_000,
      200,
    ).catch((err: Error) => {
      throw new Error(`${err.message}\n${pipeline.output()}`);
    });
    // Field 19 of /proc/<pid>/stat is the nice value; the command name before it may hold spaces.
    const stat = fs.readFileSync(`/proc/${pipeline.proc.pid}/stat`, 'utf8');
    expect(Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16])).toBe(7);
  } finally {
    pipeline.proc.kill('SIGTERM');
    await pipeline.exited;
  }
});
