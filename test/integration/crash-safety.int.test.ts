/**
 * Effectively-once under crashes (docs/product.md, Delivery guarantees): a daemon killed by SIGKILL between a commit and its acks
 * gets the batch redelivered after restart; nothing is lost and nothing is stored twice.
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
import { spawnPipeline } from '../support/processes';
import { eventsNotApplied, pipelineCaughtUp } from '../support/stream';

let db: Db;
let shop: TestStore;

beforeAll(async () => {
  db = testDb();
  shop = await createTestStore(db);
});
afterAll(() => db.close());

async function publishEvents(n: number): Promise<string[]> {
  const nc = await connect({ servers: testEnv.natsUrl });
  const js = jetstream(nc);
  const ids: string[] = [];
  const base = Date.now() - 60_000;
  for (let i = 0; i < n; i++) {
    const clientId = `crash-${i % 37}`;
    const ev = sampleEvent('page_viewed', {
      id: `crash-${randomUUID()}`,
      clientId,
      timestamp: new Date(base + i).toISOString(),
    });
    ids.push(ev.id);
    await js.publish(
      eventSubject(partitionOf(shop.store.store_id, clientId, TEST_PARTITIONS), shop.store.store_id, ev.name),
      JSON.stringify(ev),
      {
        msgID: eventMsgId(shop.store.store_id, ev.id),
      },
    );
  }
  await nc.close();
  return ids;
}

/** The events stored as facts by the views' batches (the writer killed), and as raw payloads by their own writer. */
const stored = async (): Promise<{ total: number; raw: number }> => {
  const [r] = await db.query<{ total: string; raw: string }>(
    'test.stored',
    `select (select count(*) from event_facts where store_id = $1) as total,
            (select count(*) from raw_events where store_id = $1) as raw`,
    [shop.store.store_id],
  );
  return { total: Number(r!.total), raw: Number(r!.raw) };
};

/**
 * Applies what earlier tests of this worker left in the stream: the crashing daemon's first batch must hold this
 * test's events, or it dies having committed only another store's.
 */
async function applyLeftovers(): Promise<void> {
  const nc = await connect({ servers: testEnv.natsUrl });
  try {
    if ((await eventsNotApplied(nc)) === 0) return;
    const draining = spawnPipeline({ PIPELINE_HEALTH_PORT: String(await freePort()) });
    try {
      await pipelineCaughtUp(nc);
    } finally {
      draining.proc.kill('SIGTERM');
      await draining.exited;
    }
  } finally {
    await nc.close();
  }
}

it('loses nothing and duplicates nothing when killed between commit and ack', async () => {
  await applyLeftovers();
  const ids = await publishEvents(600);

  const crashing = spawnPipeline({
    PIPELINE_FAULT_KILL_AFTER_COMMITS: '1',
    PIPELINE_BATCH_MAX: '100',
    PIPELINE_HEALTH_PORT: String(await freePort()),
  });
  const exit = await crashing.exited;
  expect(exit.signal).toBe('SIGKILL');
  const afterCrash = await stored();
  expect(afterCrash.total).toBeGreaterThan(0);
  expect(afterCrash.total).toBeLessThan(ids.length);

  const healthy = spawnPipeline({ PIPELINE_HEALTH_PORT: String(await freePort()) });
  try {
    // The unacked batch is redelivered after ack_wait; the test consumer config keeps that short.
    // Both tables are keyed by the event id: more than one row per event would show as a count above the ids.
    const final = await waitFor(stored, (s) => s.total >= ids.length && s.raw >= ids.length, 90_000, 200);
    expect(final).toEqual({ total: ids.length, raw: ids.length });
  } finally {
    healthy.proc.kill('SIGTERM');
    const exit = await healthy.exited;
    expect(exit.code).toBe(0);
  }
});
