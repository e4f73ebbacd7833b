/**
 * JetStream source: one durable pull consumer per owned partition and one per its overflow twin, merged into one
 * Observable of inbound messages with their ack handles. `stop()` closes the consumers so the source
 * completes and everything downstream flushes.
 */
import { merge, Observable } from 'rxjs';
import type { ConsumerMessages, JetStreamClient, JsMsg } from '@nats-io/jetstream';
import {
  EVENTS_STREAM,
  pipelineConsumers,
  RECEIVED_AT_HEADER,
  VALIDATED_HEADER,
  VALIDATION_VERSION,
} from '../../../contracts/src/subjects';
import type { InboundMessage } from '../stream/inbound-message';

const ignore = (): void => undefined;

/**
 * When a message was received, in epoch ms: the API's header, else the time the stream stored the message. Both
 * travel with the message, so every delivery, replay and rebuild of it gets the same time (docs/decisions.md,
 * Storage, "A message's received-at").
 */
export function receivedAtOf(m: Pick<JsMsg, 'headers' | 'timestampNanos'>): number {
  const header = m.headers?.get(RECEIVED_AT_HEADER);
  const stated = header ? Number(header) : NaN;
  return Number.isFinite(stated) ? stated : Number(m.timestampNanos / 1_000_000n);
}

/**
 * A stream message as the batch flow takes it. `acknowledged: false` for a consumer without an acknowledgement
 * policy (the replay's ordered consumer): its handles then do nothing, where an ack would only send nats-server
 * a reply to ignore.
 */
export function toInbound(m: JsMsg, acknowledged = true): InboundMessage {
  return {
    subject: m.subject,
    seq: m.seq,
    data: m.data,
    receivedAt: receivedAtOf(m),
    redelivered: m.redelivered,
    validated: m.headers?.get(VALIDATED_HEADER) === VALIDATION_VERSION,
    ack: acknowledged ? () => m.ack() : ignore,
    nak: acknowledged ? (delayMs) => m.nak(delayMs) : ignore,
    working: acknowledged ? () => m.working() : ignore,
  };
}

export interface PartitionSource {
  messages$: Observable<InboundMessage>;
  /** Stops pulling; the source completes once the consumers have closed. */
  stop(): Promise<void>;
}

const PULL_EXPIRES_MS = 5_000;

export function consumePartitions(
  js: JetStreamClient,
  partitions: readonly number[],
  pullMax: number,
  onError: (consumer: string, err: unknown) => void = () => undefined,
  retryMs = 1000,
): PartitionSource {
  const open = new Set<ConsumerMessages>();
  let stopped = false;
  let wake: () => void = () => undefined;
  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      wake = resolve;
      setTimeout(resolve, ms).unref();
    });

  // One consumer's messages. A consumer that cannot be reached (its JetStream leader moving after a node
  // failure, the server restarting) is retried until it can, or until stop(); it never ends the pipeline.
  const one = (name: string): Observable<InboundMessage> =>
    new Observable<InboundMessage>((subscriber) => {
      let iter: ConsumerMessages | undefined;
      void (async () => {
        while (!stopped) {
          try {
            const consumer = await js.consumers.get(EVENTS_STREAM, name);
            if (stopped) break;
            // Short expiries: a pull refused at max_ack_pending stalls the consumer until two heartbeats are missed
            // (docs/decisions.md, Operations).
            iter = await consumer.consume({ max_messages: pullMax, expires: PULL_EXPIRES_MS });
            open.add(iter);
            for await (const m of iter) subscriber.next(toInbound(m));
          } catch (err) {
            if (!stopped) onError(name, err);
          } finally {
            if (iter) open.delete(iter);
          }
          if (!stopped) await pause(retryMs);
        }
        subscriber.complete();
      })();
      return () => {
        void iter?.close();
      };
    });

  return {
    messages$: merge(...pipelineConsumers(partitions).map((c) => one(c.name))),
    async stop() {
      stopped = true;
      wake();
      await Promise.all([...open].map((it) => it.close()));
    },
  };
}
