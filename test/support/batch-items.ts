/** Batch items as the pipeline's source hands them to the batch writer, for tests that apply batches directly. */
import { eventSubject } from '../../contracts/src/subjects';
import { decodeMessage } from '../../pipeline/src/domain/decode-message';
import type { BatchItem } from '../../pipeline/src/stream/build-pipeline';
import type { QueryResultRow } from 'pg';
import type { Query } from '../../storage/db';

let seq = 0;

/**
 * The message `body` on the subject of `name` (an event kind or a push subject) in `partition`; its stream
 * sequence `streamSeq`, else the next of a counter of this module.
 */
export function batchItem(
  storeId: string,
  partition: number,
  name: string,
  body: unknown,
  receivedAt = Date.now(),
  streamSeq = ++seq,
): BatchItem {
  const subject = eventSubject(partition, storeId, name);
  const data = new TextEncoder().encode(JSON.stringify(body));
  const msg = {
    subject,
    seq: streamSeq,
    data,
    receivedAt,
    redelivered: false,
    ack: () => undefined,
    nak: () => undefined,
    working: () => undefined,
  };
  return { msg, decoded: decodeMessage(subject, data, receivedAt) };
}

/** `q` with its statements passed through `through` (a test's failing or noting statement); COPY goes to `q`. */
export function queryThrough(
  q: Query,
  through: (tag: string, sql: string, params?: unknown[]) => Promise<QueryResultRow[]>,
): Query {
  return Object.assign(through as <R extends QueryResultRow>(t: string, s: string, p?: unknown[]) => Promise<R[]>, {
    copyFrom: q.copyFrom,
  });
}
