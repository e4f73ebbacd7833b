/** Publishes the spend pull's ad-spend messages to JetStream, up to 1000 in flight, resolving after every ack. */
import { jetstream } from '@nats-io/jetstream';
import { headers as natsHeaders, type NatsConnection } from '@nats-io/nats-core';
import { RECEIVED_AT_HEADER } from '../../../contracts/src/subjects';
import type { PublishSpend } from '../jobs/ad-spend-pull';

export function jetStreamSpendPublisher(nc: NatsConnection): PublishSpend {
  const js = jetstream(nc);
  return async (messages) => {
    const inFlight = new Set<Promise<unknown>>();
    for (const m of messages) {
      const h = natsHeaders();
      h.set(RECEIVED_AT_HEADER, String(Date.now()));
      const p = js.publish(m.subject, m.payload, { msgID: m.msgId, headers: h });
      inFlight.add(p);
      void p.finally(() => inFlight.delete(p)).catch(() => undefined);
      if (inFlight.size >= 1000) await Promise.race(inFlight);
    }
    await Promise.all(inFlight);
  };
}
