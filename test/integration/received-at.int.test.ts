/**
 * A message's received-at (docs/decisions.md, Storage): one published without the API's header, as an older
 * publisher or a hand-written message is, gets the time the stream stored it, both when the daemon stores it and
 * when a replay stores it again (its payload pruned by retention meanwhile), never the clock of the moment.
 */
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { EVENTS_STREAM, eventSubject, partitionOf } from '../../contracts/src/subjects';
import { silentLogger } from '../../runtime/logger';
import type { Db } from '../../storage/db';
import type { RunningPipeline } from '../../pipeline/src/app/daemon';
import { replayStore } from '../../pipeline/src/operations/replay';
import { TEST_PARTITIONS, testEnv } from '../support/env';
import { createTestStore, startTestPipeline, testDb, waitFor } from '../support/harness';
import { pageView } from '../support/journeys';

let db: Db;
let nc: NatsConnection;
let pipeline: RunningPipeline;
beforeAll(async () => {
  db = testDb();
  nc = await connect({ servers: testEnv.natsUrl });
  pipeline = await startTestPipeline();
});
afterAll(async () => {
  await pipeline.stop();
  await nc.close();
  await db.close();
});

/** The received-at stored in `table` (its facts or its raw payload) of the store's event, in epoch ms, once there is one. */
const receivedAt = (storeId: string, eventId: string, table: 'event_facts' | 'raw_events'): Promise<number | null> =>
  db
    .query<{ ms: string }>(
      'test.received_at',
      `select floor(extract(epoch from received_at) * 1000)::bigint::text as ms
       from ${table} where store_id = $1 and event_id = $2`,
      [storeId, eventId],
    )
    .then((rows) => (rows[0] ? Number(rows[0].ms) : null));

it('a message without the received-at header stores the stream time, the same when it is replayed', async () => {
  const storeId = (await createTestStore(db)).store.store_id;
  const event = pageView({ client: 'no-header-1', at: new Date(Date.now() - 3_600_000).toISOString() });
  const subject = eventSubject(partitionOf(storeId, event.clientId, TEST_PARTITIONS), storeId, event.name);
  const ack = await jetstream(nc).publish(subject, JSON.stringify(event));
  const stored = await (await jetstreamManager(nc)).streams.getMessage(EVENTS_STREAM, { seq: ack.seq });
  const streamTime = stored!.time.getTime();

  for (const table of ['event_facts', 'raw_events'] as const) {
    const live = await waitFor(
      () => receivedAt(storeId, event.id, table),
      (ms) => ms !== null,
      60_000,
    );
    expect(live).toBe(streamTime);
  }

  // A rebuild loads the facts again from the stream, with the same time.
  const rebuilt = await replayStore(nc, db, { storeId, rebuild: true }, silentLogger());
  expect(rebuilt.processed).toBe(1);
  expect(await receivedAt(storeId, event.id, 'event_facts')).toBe(streamTime);
});
