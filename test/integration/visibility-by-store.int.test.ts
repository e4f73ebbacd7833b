/**
 * The visibility histogram by store (`PIPELINE_VISIBILITY_BY_STORE=on`, docs/operations.md), which the fairness
 * bench reads: every committed event of each store is observed under its own store, and nothing by store by
 * default (one series per store would be too many for a large deployment).
 */
import { randomUUID } from 'node:crypto';
import type { RunningApi } from '../../query-api/src/app/api';
import type { RunningPipeline } from '../../pipeline/src/app/daemon';
import { loadPipelineConfig } from '../../pipeline/src/app/config';
import type { Db } from '../../storage/db';
import { baseEnv, createTestStore, startTestApi, startTestPipeline, testDb, waitFor } from '../support/harness';
import { pageView, send } from '../support/journeys';

let db: Db;
let api: RunningApi;
let pipeline: RunningPipeline;

beforeAll(async () => {
  db = testDb();
  api = await startTestApi();
  pipeline = await startTestPipeline({ PIPELINE_VISIBILITY_BY_STORE: 'on' });
});

afterAll(async () => {
  await pipeline.stop();
  await api.stop();
  await db.close();
});

it('observes each store’s events under its own store, and is off by default', async () => {
  expect(loadPipelineConfig(baseEnv()).visibilityByStore).toBe(false);
  const stores = [await createTestStore(db), await createTestStore(db)];
  const counts = [3, 2];
  for (const [i, shop] of stores.entries()) {
    const client = randomUUID();
    const events = Array.from({ length: counts[i]! }, (_, n) =>
      pageView({ client, at: new Date(Date.now() - (10 - n) * 60_000).toISOString() }),
    );
    await send(api.url, shop.credentials.ingest_key, db, shop.store.store_id, events);
  }
  // Observed just after the commit that `send` waited for: wait for the metric too.
  const observed = async () => {
    const { values } = await pipeline.metrics.storeVisibility.get();
    return stores.map(
      (s) =>
        values.find(
          (v) => v.metricName === 'pipeline_store_visibility_seconds_count' && v.labels.store === s.store.store_id,
        )?.value,
    );
  };
  expect(await waitFor(observed, (n) => n.every((c, i) => c === counts[i]))).toEqual(counts);
});
