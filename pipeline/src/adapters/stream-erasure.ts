/**
 * Taking a person's or a store's messages out of the JetStream streams (docs/operations.md, Privacy): the
 * EVENTS stream by sequence (the sequences the batch recorded, `message_owners`), the WEBHOOKS work queue by
 * reading the store's queued deliveries, a whole store by purging its subjects.
 */
import { JetStreamApiCodes, JetStreamApiError, type JetStreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/nats-core';
import { EVENTS_STREAM, EVENTS_SUBJECT_PREFIX } from '../../../contracts/src/subjects';
import { storeDeliverySubjects, WEBHOOKS_STREAM } from '../../../contracts/src/webhook-delivery';

/** Deletions in flight at once: each is a request to the server. */
const DELETES_IN_FLIGHT = 128;

/**
 * nats-server's answer to deleting a sequence that a concurrent delete has just removed ("sequence N not found"),
 * beside `NoMessageFound` for one long gone: the pipeline drops an erased person's messages still in flight while
 * the erasure deletes the person's messages, so both may ask for the same sequence.
 */
const SEQUENCE_NOT_FOUND = 10043;

const alreadyGone = (err: unknown): boolean =>
  err instanceof JetStreamApiError &&
  (err.code === JetStreamApiCodes.NoMessageFound || err.code === SEQUENCE_NOT_FOUND);

/**
 * Deletes messages of `stream` by sequence, their bytes overwritten on disk (the server's secure erase); returns
 * how many were still there. A message gone already (deleted before, or aged out) is no error.
 */
export async function deleteStreamMessages(
  jsm: JetStreamManager,
  seqs: readonly number[],
  stream: string = EVENTS_STREAM,
): Promise<number> {
  const unique = [...new Set(seqs)].sort((a, b) => a - b);
  let deleted = 0;
  for (let i = 0; i < unique.length; i += DELETES_IN_FLIGHT) {
    const done = await Promise.all(
      unique.slice(i, i + DELETES_IN_FLIGHT).map((seq) =>
        jsm.streams.deleteMessage(stream, seq, true).catch((err: unknown) => {
          if (alreadyGone(err)) return false;
          throw err;
        }),
      ),
    );
    deleted += done.filter(Boolean).length;
  }
  return deleted;
}

interface StoredMessageAnswer {
  message?: { seq: number; subject: string; data?: string };
  error?: { code: number; description?: string };
}

/**
 * The messages of `filter` in `stream` whose bytes contain one of `needles`, read one after the other by the
 * server's per-subject lookup (a work queue takes no second consumer beside its worker's): sequences to delete.
 */
export async function messagesContaining(
  nc: NatsConnection,
  stream: string,
  filter: string,
  needles: readonly string[],
): Promise<number[]> {
  const wanted = needles.filter((n) => n.length > 0).map((n) => Buffer.from(n, 'utf8'));
  if (wanted.length === 0) return [];
  const found: number[] = [];
  for (let seq = 1; ;) {
    const answer = (
      await nc.request(`$JS.API.STREAM.MSG.GET.${stream}`, JSON.stringify({ next_by_subj: filter, seq }))
    ).json<StoredMessageAnswer>();
    if (!answer.message) return found;
    const data = Buffer.from(answer.message.data ?? '', 'base64');
    if (wanted.some((n) => data.includes(n))) found.push(answer.message.seq);
    seq = answer.message.seq + 1;
  }
}

/** Deletes the store's queued deliveries (identity events, purchases for the ad platforms) that name the person. */
export async function eraseQueuedDeliveries(
  nc: NatsConnection,
  jsm: JetStreamManager,
  storeId: string,
  needles: readonly string[],
): Promise<number> {
  const seqs: number[] = [];
  for (const filter of storeDeliverySubjects(storeId)) {
    seqs.push(...(await messagesContaining(nc, WEBHOOKS_STREAM, filter, needles)));
  }
  return deleteStreamMessages(jsm, seqs, WEBHOOKS_STREAM);
}

/** Purges every message of a store from both streams; returns how many went. */
export async function purgeStoreMessages(jsm: JetStreamManager, storeId: string): Promise<number> {
  const events = await jsm.streams.purge(EVENTS_STREAM, { filter: `${EVENTS_SUBJECT_PREFIX}.*.${storeId}.>` });
  let deliveries = 0;
  for (const filter of storeDeliverySubjects(storeId)) {
    deliveries += (await jsm.streams.purge(WEBHOOKS_STREAM, { filter })).purged;
  }
  return events.purged + deliveries;
}
