/**
 * Publishes accepted events and pushes to JetStream and resolves only when the stream acknowledged them
 * (docs/product.md, Ingestion: the HTTP reply waits for the ack), with `Nats-Msg-Id` for de-duplication.
 *
 * A request's messages go out as plain publishes whose reply subjects all land on one inbox subscription, and the
 * request waits on one promise and one timer (docs/decisions.md, Ingestion). nats.js's `js.publish` is a request
 * per message: a promise, a timer and a subscription entry each, and an Error built when the request ends.
 */
import { createInbox, headers as natsHeaders, type Msg, type NatsConnection } from '@nats-io/nats-core';
import { RECEIVED_AT_HEADER, VALIDATED_HEADER, VALIDATION_VERSION } from '../../../contracts/src/subjects';

export interface PublishResult {
  seq: number;
  duplicate: boolean;
}

export interface OutgoingMessage {
  subject: string;
  payload: string;
  /** The de-duplication id (`Nats-Msg-Id`). */
  msgId: string;
}

export interface EventPublisher {
  /**
   * Publishes the messages and resolves with their acknowledgements, in order, once the stream acknowledged every
   * one; rejects when one is refused, when nothing listens on a subject, or when `timeoutMs` passes first.
   */
  publishAll(messages: readonly OutgoingMessage[], receivedAt: number): Promise<PublishResult[]>;
  publish(subject: string, payload: string, msgId: string, receivedAt: number): Promise<PublishResult>;
  connected(): boolean;
}

/** The messages of one call still waiting for their acknowledgements. */
interface Waiting {
  results: PublishResult[];
  left: number;
  timer: NodeJS.Timeout;
  resolve: (results: PublishResult[]) => void;
  reject: (err: Error) => void;
}

/** What JetStream answers to a publish: an ack, or an error. */
interface PubAck {
  stream?: string;
  seq?: number;
  duplicate?: boolean;
  error?: { code?: number; err_code?: number; description?: string };
}

export function createEventPublisher(nc: NatsConnection, timeoutMs = 5000): EventPublisher {
  // Reply subjects: <inbox>.<call>.<index of the message in the call>.
  const inbox = createInbox();
  const waiting = new Map<number, Waiting>();
  let calls = 0;

  const settle = (call: number, outcome: PublishResult[] | Error): void => {
    const w = waiting.get(call);
    if (!w) return;
    waiting.delete(call);
    clearTimeout(w.timer);
    if (outcome instanceof Error) w.reject(outcome);
    else w.resolve(outcome);
  };

  const onReply = (err: Error | null, msg: Msg): void => {
    if (err) {
      // The inbox subscription itself failed (permissions, say): nothing waiting can be acknowledged.
      for (const call of [...waiting.keys()])
        settle(call, new Error(`JetStream acknowledgements lost: ${err.message}`));
      return;
    }
    const tokens = msg.subject.slice(inbox.length + 1).split('.');
    const call = Number(tokens[0]);
    const index = Number(tokens[1]);
    const w = waiting.get(call);
    if (!w || !(index >= 0 && index < w.results.length) || w.results[index]) return;
    if (msg.headers?.hasError) {
      // 503: no stream listens on the subject (the server answers for it).
      settle(call, new Error(`JetStream did not take the message: ${msg.headers.code} ${msg.headers.description}`));
      return;
    }
    let ack: PubAck;
    try {
      ack = msg.json<PubAck>();
    } catch {
      settle(call, new Error('JetStream answered a publish with something other than JSON'));
      return;
    }
    if (ack.error || typeof ack.seq !== 'number') {
      settle(call, new Error(`JetStream refused a message: ${ack.error?.description ?? 'no sequence in its ack'}`));
      return;
    }
    w.results[index] = { seq: ack.seq, duplicate: ack.duplicate === true };
    if (--w.left === 0) settle(call, w.results);
  };
  nc.subscribe(`${inbox}.*.*`, { callback: onReply });

  const publishAll = (messages: readonly OutgoingMessage[], receivedAt: number): Promise<PublishResult[]> => {
    if (messages.length === 0) return Promise.resolve([]);
    const call = ++calls;
    return new Promise<PublishResult[]>((resolve, reject) => {
      const timer = setTimeout(() => {
        const left = waiting.get(call)?.left ?? 0;
        settle(
          call,
          new Error(
            `JetStream acknowledged ${messages.length - left} of ${messages.length} messages within ${timeoutMs} ms`,
          ),
        );
      }, timeoutMs);
      waiting.set(call, {
        results: new Array<PublishResult>(messages.length),
        left: messages.length,
        timer,
        resolve,
        reject,
      });
      try {
        messages.forEach((m, i) => {
          const h = natsHeaders();
          h.set('Nats-Msg-Id', m.msgId);
          h.set(RECEIVED_AT_HEADER, String(receivedAt));
          // Every payload published here is the output of the contracts' validators.
          h.set(VALIDATED_HEADER, VALIDATION_VERSION);
          nc.publish(m.subject, m.payload, { reply: `${inbox}.${call}.${i}`, headers: h });
        });
      } catch (err) {
        // A closed or draining connection refuses the publish at once.
        settle(call, err instanceof Error ? err : new Error(String(err)));
      }
    });
  };

  return {
    publishAll,
    publish: async (subject, payload, msgId, receivedAt) =>
      (await publishAll([{ subject, payload, msgId }], receivedAt))[0]!,
    connected: () => !nc.isClosed(),
  };
}
