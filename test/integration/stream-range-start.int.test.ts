/**
 * A replay starts at its store's first message, found per subject, rather than at the stream's beginning
 * (docs/operations.md, Runbook). On a stream of the test's own, so that nothing else reads its messages.
 */
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { firstSequenceOf } from '../../pipeline/src/operations/stream-range';
import { testEnv } from '../support/env';

const STREAM = 'RANGE_START_TEST';
let nc: NatsConnection;

/** Publishes one message to each subject in turn, and returns their sequences. */
async function publish(subjects: readonly string[]): Promise<number[]> {
  const js = jetstream(nc);
  const seqs: number[] = [];
  for (const subject of subjects) seqs.push((await js.publish(subject, '{}')).seq);
  return seqs;
}

beforeAll(async () => {
  nc = await connect({ servers: testEnv.natsUrl });
  const jsm = await jetstreamManager(nc);
  await jsm.streams.delete(STREAM).catch(() => undefined);
  await jsm.streams.add({ name: STREAM, subjects: ['rs.>'] });
});

afterAll(async () => {
  const jsm = await jetstreamManager(nc);
  await jsm.streams.delete(STREAM).catch(() => undefined);
  await nc.close();
});

it('finds the first message of a store whose messages follow and interleave with another’s', async () => {
  await publish(Array.from({ length: 50 }, (_, i) => `rs.${i % 4}.st_a.page_viewed`));
  const [firstOfB] = await publish(['rs.2.st_b.page_viewed', 'rs.0.st_b.checkout_completed']);
  await publish(['rs.1.st_a.page_viewed', 'rs.3.st_b.page_viewed']);
  const jsm = await jetstreamManager(nc);
  const info = await jsm.streams.info(STREAM, { subjects_filter: 'rs.*.st_b.*' });
  const subjects = Object.keys(info.state.subjects ?? {});
  expect(subjects).toHaveLength(3);
  expect(await firstSequenceOf(nc, STREAM, subjects)).toBe(firstOfB);
  expect(firstOfB).toBe(51);
});

it('looks more subjects up than it asks at once, the earliest in the last group', async () => {
  const subjects = Array.from({ length: 70 }, (_, i) => `rs.${i}.st_c.page_viewed`);
  // Published in reverse, so the last subject holds the earliest message.
  const seqs = await publish([...subjects].reverse());
  expect(await firstSequenceOf(nc, STREAM, subjects)).toBe(seqs[0]);
});

it('answers null when no subject holds a message', async () => {
  expect(await firstSequenceOf(nc, STREAM, ['rs.0.st_none.page_viewed'])).toBeNull();
  expect(await firstSequenceOf(nc, STREAM, [])).toBeNull();
});
