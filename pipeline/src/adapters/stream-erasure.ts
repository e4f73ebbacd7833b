/**
 * Taking a person's messages out of the JetStream streams (docs/operations.md, Privacy): the EVENTS stream by
 * sequence (the sequences the batch recorded, `message_owners`).
 */
import { JetStreamApiCodes, JetStreamApiError, type JetStreamManager } from '@nats-io/jetstream';
import { EVENTS_STREAM } from '../../../contracts/src/subjects';

/** Deletions in flight at once: each is a request to the server. */
const DELETES_IN_FLIGHT = 128;

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
          if (err instanceof JetStreamApiError && err.code === JetStreamApiCodes.NoMessageFound) return false;
          throw err;
        }),
      ),
    );
    deleted += done.filter(Boolean).length;
  }
  return deleted;
}
