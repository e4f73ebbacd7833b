/**
 * A store's messages in a range of the EVENTS stream, read by an ordered consumer: what a replay and a rebuild
 * consume. The replay's consumer acknowledges nothing (docs/decisions.md, Operations).
 */
import { DeliverPolicy, type JetStreamClient, type JsMsg } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/nats-core';
import { EVENTS_STREAM } from '../../../contracts/src/subjects';

export interface StreamRange {
  /** Start: a stream sequence, or an instant (epoch ms). Default: the beginning of the stream. */
  fromSeq?: number;
  fromTime?: number;
  /** End (inclusive) as an instant; the last sequence is `lastSeq`. */
  toTime?: number;
  /** How long one fetch waits for the messages it asked for (default 2 s); the read never waits for it to expire. */
  fetchExpiresMs?: number;
}

/**
 * The messages of `filter` in the range, in stream order, fetched `batchSize` at a time, until the range's last
 * message or until the stream holds nothing more for the filter.
 */
export async function* rangeMessages(
  js: JetStreamClient,
  filter: string,
  range: StreamRange,
  lastSeq: number,
  batchSize: number,
): AsyncGenerator<JsMsg> {
  const consumer = await js.consumers.get(EVENTS_STREAM, {
    filter_subjects: filter,
    ...(range.fromSeq !== undefined
      ? { deliver_policy: DeliverPolicy.StartSequence, opt_start_seq: range.fromSeq }
      : range.fromTime !== undefined
        ? { deliver_policy: DeliverPolicy.StartTime, opt_start_time: new Date(range.fromTime).toISOString() }
        : { deliver_policy: DeliverPolicy.All }),
  });
  for (let done = false; !done;) {
    const messages = await consumer.fetch({ max_messages: batchSize, expires: range.fetchExpiresMs ?? 2000 });
    let received = 0;
    for await (const m of messages) {
      received++;
      if (m.seq > lastSeq || (range.toTime !== undefined && m.info.timestampNanos / 1e6 > range.toTime)) {
        done = true;
        break;
      }
      yield m;
      // The range's last message, or the last the stream holds for the filter (nothing more pending): a fetch
      // short of its count would otherwise idle the read until it expires.
      if (m.seq === lastSeq || m.info.pending === 0) {
        done = true;
        break;
      }
    }
    if (received === 0) done = true;
  }
}

/** Requests in flight at once while looking up the subjects' first messages. */
const FIRST_SEQUENCE_LOOKUPS = 32;

/**
 * The sequence of the earliest message among `subjects` (literal subjects: the stream's per-subject counts name
 * them), or null when none holds one. A consumer whose filter has wildcards starts where it is told and
 * nats-server then tests every message after that point against the filter: from the stream's beginning, 4.2 s
 * before the first of a store's 103k messages that followed 1.46M of other stores (docs/operations.md, Runbook).
 * Each subject's first message is one lookup the server answers from its per-subject index (271 subjects in
 * 0.1 s there).
 */
export async function firstSequenceOf(
  nc: NatsConnection,
  stream: string,
  subjects: readonly string[],
): Promise<number | null> {
  let first: number | null = null;
  for (let i = 0; i < subjects.length; i += FIRST_SEQUENCE_LOOKUPS) {
    const answers = await Promise.all(
      subjects
        .slice(i, i + FIRST_SEQUENCE_LOOKUPS)
        .map((subject) =>
          nc.request(`$JS.API.STREAM.MSG.GET.${stream}`, JSON.stringify({ next_by_subj: subject, seq: 1 })),
        ),
    );
    for (const answer of answers) {
      // A subject whose messages are gone meanwhile answers with an error (no message found): it holds none.
      const seq = answer.json<{ message?: { seq?: number } }>().message?.seq;
      if (typeof seq === 'number' && (first === null || seq < first)) first = seq;
    }
  }
  return first;
}
