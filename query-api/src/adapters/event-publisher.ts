/**
 * Publishes accepted events and pushes to JetStream and resolves only when the stream acknowledged them
 * (docs/product.md, Ingestion: the HTTP reply waits for the ack), with `Nats-Msg-Id` for de-duplication.
 */
import { headers as natsHeaders, type NatsConnection } from '@nats-io/nats-core';
import { jetstream, type JetStreamClient } from '@nats-io/jetstream';
import { RECEIVED_AT_HEADER, VALIDATED_HEADER, VALIDATION_VERSION } from '../../../contracts/src/subjects';

export interface PublishResult {
  seq: number;
  duplicate: boolean;
}

export interface EventPublisher {
  publish(subject: string, payload: string, msgId: string, receivedAt: number): Promise<PublishResult>;
  connected(): boolean;
}

export function createEventPublisher(nc: NatsConnection, timeoutMs = 5000): EventPublisher {
  const js: JetStreamClient = jetstream(nc, { timeout: timeoutMs });
  return {
    async publish(subject, payload, msgId, receivedAt) {
      const h = natsHeaders();
      h.set(RECEIVED_AT_HEADER, String(receivedAt));
      // Every payload published here is the output of the contracts' validators.
      h.set(VALIDATED_HEADER, VALIDATION_VERSION);
      const ack = await js.publish(subject, payload, { msgID: msgId, headers: h });
      return { seq: ack.seq, duplicate: ack.duplicate };
    },
    connected: () => !nc.isClosed(),
  };
}
