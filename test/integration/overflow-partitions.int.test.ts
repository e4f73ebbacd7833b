/**
 * A store over its live rate overflows (docs/decisions.md, Ingestion): the API publishes its requests to the
 * partitions' overflow twins once its burst is spent, the daemon consumes those too, and a backlog there does not
 * hold another store's live events behind it.
 */
import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { EVENTS_STREAM, eventMsgId, eventSubject, parseEventSubject, partitionOf } from '../../contracts/src/subjects';
import type { RunningApi } from '../../query-api/src/app/api';
import type { RunningPipeline } from '../../pipeline/src/app/daemon';
import type { Db } from '../../storage/db';
import { testEnv, TEST_PARTITIONS } from '../support/env';
import { createTestStore, startTestApi, startTestPipeline, testDb, waitFor } from '../support/harness';
import { pageView } from '../support/journeys';
import { pipelineCaughtUp } from '../support/stream';

let db: Db;
let nc: NatsConnection;

beforeAll(async () => {
  db = testDb();
  nc = await connect({ servers: testEnv.natsUrl });
});

afterAll(async () => {
  await nc.close();
  await db.close();
});

const factCount = async (storeId: string): Promise<number> =>
  Number(
    (
      await db.query<{ n: string }>('test.facts', 'select count(*) as n from event_facts where store_id = $1', [
        storeId,
      ])
    )[0]!.n,
  );

/** The EVENTS stream's messages of a store, by lane. */
async function messagesByLane(storeId: string): Promise<{ live: number; overflow: number }> {
  const jsm = await jetstreamManager(nc);
  const info = await jsm.streams.info(EVENTS_STREAM, { subjects_filter: `ev.*.${storeId}.>` });
  const counts = { live: 0, overflow: 0 };
  for (const [subject, n] of Object.entries(info.state.subjects ?? {})) {
    if (parseEventSubject(subject)?.overflow) counts.overflow += n;
    else counts.live += n;
  }
  return counts;
}

const pageViews = (n: number) => {
  const client = randomUUID();
  const base = Date.now() - 3_600_000;
  return Array.from({ length: n }, (_, i) => pageView({ client, at: new Date(base + i * 1000).toISOString() }));
};

describe('the API', () => {
  let api: RunningApi;
  let pipeline: RunningPipeline;

  beforeAll(async () => {
    api = await startTestApi({ API_LIVE_EVENTS_PER_STORE: '5', API_LIVE_BURST_PER_STORE: '20' });
    pipeline = await startTestPipeline();
  });

  afterAll(async () => {
    await pipeline.stop();
    await api.stop();
  });

  it('publishes a store past its burst to the overflow partitions, each request whole, and the views get all', async () => {
    const flood = await createTestStore(db);
    const other = await createTestStore(db);
    const post = async (key: string, n: number) => {
      const res = await request(api.url).post('/v2-4-2/api/events').set('X-Ingest-Key', key).send(pageViews(n));
      expect(res.status).toBe(200);
      expect(res.body.data.accepted).toBe(n);
    };
    // 15 fit in the burst of 20; the next 15 do not (5 left), and the store stays over its rate for the third.
    for (let i = 0; i < 3; i++) await post(flood.credentials.ingest_key, 15);
    await post(other.credentials.ingest_key, 15);

    expect(await messagesByLane(flood.store.store_id)).toEqual({ live: 15, overflow: 30 });
    expect(await messagesByLane(other.store.store_id)).toEqual({ live: 15, overflow: 0 });
    const metrics = await request(api.url).get('/metrics');
    expect(metrics.text).toMatch(/^api_events_overflowed_total\{kind="event"\} 30$/m);
    expect(metrics.text).toMatch(/^api_stores_overflowing 1$/m);

    expect(
      await waitFor(
        () => factCount(flood.store.store_id),
        (n) => n === 45,
      ),
    ).toBe(45);
    expect(
      await waitFor(
        () => factCount(other.store.store_id),
        (n) => n === 15,
      ),
    ).toBe(15);
    await pipelineCaughtUp(nc);
  });
});

describe('the API pacing a store while other stores send', () => {
  let api: RunningApi;
  let pipeline: RunningPipeline;

  beforeAll(async () => {
    api = await startTestApi({
      API_LIVE_EVENTS_PER_STORE: '5',
      API_LIVE_BURST_PER_STORE: '20',
      API_PACED_EVENTS_PER_STORE: '10',
    });
    pipeline = await startTestPipeline();
  });

  afterAll(async () => {
    await pipeline.stop();
    await api.stop();
  });

  it('holds a store to its paced rate while another store sends, and never a browser’s', async () => {
    const flood = await createTestStore(db);
    const other = await createTestStore(db);
    const post = (key: string, events: unknown[]) =>
      request(api.url).post('/v2-4-2/api/events').set('X-Ingest-Key', key).send(events);
    expect((await post(other.credentials.ingest_key, pageViews(1))).status).toBe(200);
    // The burst goes live at once, and books 2 s of the store's turn (20 events at 10/s).
    expect((await post(flood.credentials.ingest_key, pageViews(20))).status).toBe(200);
    // In overflow now, and held until its turn.
    const second = Date.now();
    const held = await post(flood.credentials.ingest_key, pageViews(10));
    expect(held.status).toBe(200);
    expect(Date.now() - second).toBeGreaterThanOrEqual(1500);
    // The browser route of the same store is not held: the one request held is the one above.
    const collected = await request(api.url)
      .post(`/collect/${flood.credentials.ingest_key}`)
      .set('Content-Type', 'text/plain')
      .send(JSON.stringify(pageViews(10)));
    expect(collected.status).toBe(200);
    const metrics = await request(api.url).get('/metrics');
    expect(metrics.text).toMatch(/^api_paced_requests_total\{result="held"\} 1$/m);
    expect(await messagesByLane(flood.store.store_id)).toEqual({ live: 20, overflow: 20 });
  });
});

describe('the daemon', () => {
  it('applies a live event before a backlog in the overflow partitions that came first', async () => {
    const flood = await createTestStore(db);
    const other = await createTestStore(db);
    const js = jetstream(nc);
    // The backlog: published while no daemon runs, so that all of it waits when the daemon starts.
    const backlog = 12_000;
    const storeId = flood.store.store_id;
    for (let start = 0; start < backlog; start += 500) {
      await Promise.all(
        Array.from({ length: Math.min(500, backlog - start) }, (_, i) => {
          const client = `backlog-${(start + i) % 97}`;
          const [e] = pageViews(1).map((v) => ({ ...v, clientId: client }));
          return js.publish(
            eventSubject(partitionOf(storeId, client, TEST_PARTITIONS), storeId, e!.name, true),
            JSON.stringify(e),
            { msgID: eventMsgId(storeId, e!.id) },
          );
        }),
      );
    }
    // One lane and small batches: first come, first served, the live event would wait for all the backlog the daemon
    // holds (up to 2,500 messages per overflow consumer, 10,000 here).
    const pipeline = await startTestPipeline({ PIPELINE_BATCH_MAX: '1000', PIPELINE_CONCURRENCY: '1' });
    try {
      await waitFor(
        () => factCount(storeId),
        (n) => n > 0,
        60_000,
      );
      const before = await factCount(storeId);
      const [live] = pageViews(1);
      const liveStore = other.store.store_id;
      await js.publish(
        eventSubject(partitionOf(liveStore, live!.clientId, TEST_PARTITIONS), liveStore, live!.name),
        JSON.stringify(live),
        { msgID: eventMsgId(liveStore, live!.id) },
      );
      await waitFor(
        () => factCount(liveStore),
        (n) => n === 1,
        60_000,
      );
      const after = await factCount(storeId);
      // The batch in flight, then the live event's own batch: at most two batches of 1,000 (and the quarter kept
      // for the backlog) from the backlog meanwhile.
      expect(after - before).toBeLessThanOrEqual(3_000);
      expect(after).toBeLessThan(backlog);
      expect(
        await waitFor(
          () => factCount(storeId),
          (n) => n === backlog,
          120_000,
        ),
      ).toBe(backlog);
    } finally {
      await pipeline.stop();
    }
  });
});
