/**
 * The pipeline side of identity-event webhooks: a checkout_started event of a person with an
 * email queues one Checkout Started delivery per subscribed destination on the WEBHOOKS stream, with the
 * spec's payload; a redelivered event queues nothing new (stable webhook-id); persons without an email and
 * unsubscribed or disabled destinations get nothing; a store without any enabled destination is not asked for them
 * at all.
 */
import { connect } from '@nats-io/transport-node';
import { jetstream, jetstreamManager, type JetStreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/nats-core';
import { WEBHOOKS_STREAM, webhookSubject, type WebhookDelivery } from '../../contracts/src/webhook-delivery';
import type { Db } from '../../storage/db';
import type { RunningApi } from '../../query-api/src/app/api';
import type { RunningPipeline } from '../../pipeline/src/app/daemon';
import { specPathViolations } from '../../pipeline/src/domain/identity-events';
import { createTestStore, startTestApi, startTestPipeline, testDb, waitFor } from '../support/harness';
import { checkoutStarted, pageView, send } from '../support/journeys';
import { testEnv } from '../support/env';
import { metricValue } from '../support/metrics';
import { pipelineCaughtUp } from '../support/stream';

let db: Db;
let api: RunningApi;
let pipeline: RunningPipeline;
let nc: NatsConnection;
let jsm: JetStreamManager;

beforeAll(async () => {
  db = testDb();
  api = await startTestApi();
  pipeline = await startTestPipeline();
  nc = await connect({ servers: testEnv.natsUrl });
  jsm = await jetstreamManager(nc);
});
afterAll(async () => {
  await pipeline.stop();
  await api.stop();
  await nc.close();
  await db.close();
});

async function destination(storeId: string, id: string, events: string[], enabled = true): Promise<void> {
  await db.query(
    'test.dest',
    `insert into webhook_destinations (store_id, destination_id, url, secret, events, enabled)
     values ($1, $2, 'http://127.0.0.1:9/hook', 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', $3, $4)`,
    [storeId, id, events, enabled],
  );
}

async function queued(storeId: string, destinationId: string): Promise<number> {
  const info = await jsm.streams.info(WEBHOOKS_STREAM, { subjects_filter: webhookSubject(storeId, destinationId) });
  return info.state.subjects?.[webhookSubject(storeId, destinationId)] ?? 0;
}

it('queues the spec payload once per subscribed destination, and only for persons with an email', async () => {
  const shop = await createTestStore(db);
  const id = shop.store.store_id;
  await destination(id, 'wd_all', ['Checkout Started', 'Active On site']);
  await destination(id, 'wd_other', ['Viewed Product']);
  await destination(id, 'wd_off', ['Checkout Started'], false);

  const started = checkoutStarted(
    { client: 'W', at: '2026-07-01T10:05:00Z', id: 'cs-1' },
    'tok-w',
    42,
    'wendy@example.com',
  );
  const anonymous = checkoutStarted({ client: 'X', at: '2026-07-01T11:05:00Z', id: 'cs-2' }, 'tok-x', 10, null);
  await send(api.url, shop.credentials.ingest_key, db, id, [
    pageView({
      client: 'W',
      at: '2026-07-01T10:00:00Z',
      url: 'https://shop.example/?utm_source=google&utm_medium=cpc',
    }),
    started,
    anonymous,
  ]);

  // W's landing page view (Active On site) and checkout (Checkout Started) go to wd_all; X has no email.
  await waitFor(
    () => queued(id, 'wd_all'),
    (n) => n === 2,
  );
  expect(await queued(id, 'wd_other')).toBe(0);
  expect(await queued(id, 'wd_off')).toBe(0);

  const msg = await jsm.streams.getMessage(WEBHOOKS_STREAM, { last_by_subj: webhookSubject(id, 'wd_all') });
  const delivery = JSON.parse(new TextDecoder().decode(msg!.data)) as WebhookDelivery;
  expect(delivery).toMatchObject({ storeId: id, destinationId: 'wd_all', name: 'Checkout Started', eventId: 'cs-1' });
  expect(msg!.header.get('Nats-Msg-Id')).toBe(delivery.webhookId);
  const payload = JSON.parse(delivery.body) as Record<string, unknown>;
  expect(specPathViolations(payload)).toEqual([]);
  expect(payload).toMatchObject({
    type: 'event',
    attributes: {
      value: 42,
      unique_id: 'tok-w',
      properties: { $extra: { full_landing_site: 'https://shop.example/?utm_source=google&utm_medium=cpc' } },
      metric: { data: { type: 'metric', attributes: { name: 'Checkout Started' } } },
      profile: { data: { type: 'profile', attributes: { email: 'wendy@example.com' } } },
    },
  });

  // The same event pushed again (outside the stream's duplicate window it would be a new message) changes
  // nothing: the stored event is a duplicate, and its delivery id is stable.
  const duplicates = () => metricValue(pipeline.metrics.eventsConsumed, { result: 'duplicate' });
  const [duplicatesBefore, queuedBefore] = [
    await duplicates(),
    await metricValue(pipeline.metrics.identityEventsQueued),
  ];
  await jetstream(nc).publish(`ev.0.${id}.checkout_started`, JSON.stringify(started), { msgID: `again-${started.id}` });
  // Partition 0 has applied it: its batch committed, and a batch queues its deliveries before it commits.
  await pipelineCaughtUp(nc, [0]);
  expect(await duplicates()).toBe(duplicatesBefore + 1);
  expect(await metricValue(pipeline.metrics.identityEventsQueued)).toBe(queuedBefore);
  expect(await queued(id, 'wd_all')).toBe(2);

  await jsm.streams.purge(WEBHOOKS_STREAM, { filter: `wh.${id}.>` });
});

/** Statements the pipeline ran under `tag` (the count of its query histogram). */
async function statementsRun(tag: string): Promise<number> {
  const { values } = await pipeline.metrics.dbQuery.get();
  return values
    .filter((v) => v.metricName?.endsWith('_count') && v.labels.tag === tag)
    .reduce((n, v) => n + v.value, 0);
}

it('does not look up the destinations of a store that has none enabled, and does once one is', async () => {
  const shop = await createTestStore(db);
  const id = shop.store.store_id;
  await destination(id, 'wd_off', ['Checkout Started'], false);
  const tags = ['webhooks.destinations', 'ad_conversions.destinations'];
  const before = await Promise.all(tags.map(statementsRun));
  await send(api.url, shop.credentials.ingest_key, db, id, [
    checkoutStarted({ client: 'N', at: '2026-07-02T10:05:00Z', id: 'cs-n1' }, 'tok-n', 20, 'nina@example.com'),
  ]);
  expect(await Promise.all(tags.map(statementsRun))).toEqual(before);

  await destination(id, 'wd_on', ['Checkout Started']);
  await send(api.url, shop.credentials.ingest_key, db, id, [
    checkoutStarted({ client: 'N', at: '2026-07-02T11:05:00Z', id: 'cs-n2' }, 'tok-n2', 30, 'nina@example.com'),
  ]);
  await waitFor(
    () => queued(id, 'wd_on'),
    (n) => n === 1,
  );
  expect(await statementsRun('webhooks.destinations')).toBeGreaterThan(before[0]!);
  await jsm.streams.purge(WEBHOOKS_STREAM, { filter: `wh.${id}.>` });
});
