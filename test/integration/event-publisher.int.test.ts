/**
 * The API's publisher against a real nats-server: a call's messages resolve with their own acknowledgements in
 * order, a repeated message id comes back as a duplicate, calls in flight together do not mix, and a call fails
 * (instead of hanging) when no stream takes its subject or when the acknowledgements do not come in time.
 */
import { connect } from '@nats-io/transport-node';
import type { NatsConnection } from '@nats-io/nats-core';
import { jetstreamManager, type JetStreamManager } from '@nats-io/jetstream';
import { createEventPublisher } from '../../query-api/src/adapters/event-publisher';
import { testEnv } from '../support/env';

let nc: NatsConnection;
let jsm: JetStreamManager;
const STREAM = 'PUBLISHER_TEST';

beforeAll(async () => {
  nc = await connect({ servers: testEnv.natsUrl });
  jsm = await jetstreamManager(nc);
  await jsm.streams.add({ name: STREAM, subjects: ['pubtest.>'], duplicate_window: 60_000_000_000 });
});
afterAll(async () => {
  await jsm.streams.delete(STREAM);
  await nc.close();
});

const messages = (prefix: string, n: number) =>
  Array.from({ length: n }, (_, i) => ({
    subject: `pubtest.${prefix}`,
    payload: `{"i":${i}}`,
    msgId: `${prefix}-${i}`,
  }));

it('resolves a call with its acknowledgements in order, a repeated id as a duplicate', async () => {
  const publisher = createEventPublisher(nc);
  const first = await publisher.publishAll(messages('order', 300), 1);
  expect(first).toHaveLength(300);
  expect(first.every((a) => !a.duplicate)).toBe(true);
  // In order: each ack's sequence is one more than the one before.
  expect(first.map((a, i) => a.seq - first[0]!.seq - i).every((d) => d === 0)).toBe(true);
  const again = await publisher.publishAll([...messages('order', 2), ...messages('order-new', 1)], 2);
  expect(again.map((a) => a.duplicate)).toEqual([true, true, false]);
  expect(again.slice(0, 2).map((a) => a.seq)).toEqual(first.slice(0, 2).map((a) => a.seq));
  const stored = await jsm.streams.getMessage(STREAM, { seq: first[299]!.seq });
  expect(stored?.json()).toEqual({ i: 299 });
  expect(stored?.header.get('Nats-Msg-Id')).toBe('order-299');
  expect(await publisher.publish('pubtest.single', '{}', 'single-1', 3)).toEqual({
    seq: again[2]!.seq + 1,
    duplicate: false,
  });
});

it('keeps calls in flight together apart', async () => {
  const publisher = createEventPublisher(nc);
  const calls = Array.from({ length: 20 }, (_, c) => messages(`together-${c}`, 40));
  const acks = await Promise.all(calls.map((m) => publisher.publishAll(m, 4)));
  for (const [c, call] of acks.entries()) {
    expect(call).toHaveLength(40);
    const stored = await jsm.streams.getMessage(STREAM, { seq: call[39]!.seq });
    expect(stored?.header.get('Nats-Msg-Id')).toBe(`together-${c}-39`);
  }
  expect(new Set(acks.flat().map((a) => a.seq)).size).toBe(800);
});

it('fails a call whose subject no stream takes, without waiting for the timeout', async () => {
  const publisher = createEventPublisher(nc, 60_000);
  const started = Date.now();
  await expect(
    publisher.publishAll(
      messages('x', 1).map((m) => ({ ...m, subject: 'nostream.x' })),
      5,
    ),
  ).rejects.toThrow(/503/);
  expect(Date.now() - started).toBeLessThan(30_000);
});

it('fails a call whose acknowledgements do not come in time', async () => {
  // Something listens on the subject, so the server does not answer for it, but it never acknowledges.
  const silent = nc.subscribe('silent.>');
  try {
    const publisher = createEventPublisher(nc, 500);
    await expect(
      publisher.publishAll(
        messages('y', 3).map((m) => ({ ...m, subject: 'silent.y' })),
        6,
      ),
    ).rejects.toThrow('JetStream acknowledged 0 of 3 messages within 500 ms');
  } finally {
    silent.unsubscribe();
  }
});

it('fails a call on a closed connection at once', async () => {
  const closed = await connect({ servers: testEnv.natsUrl });
  const publisher = createEventPublisher(closed, 60_000);
  await closed.close();
  await expect(publisher.publishAll(messages('z', 2), 7)).rejects.toThrow();
  expect(publisher.connected()).toBe(false);
});
