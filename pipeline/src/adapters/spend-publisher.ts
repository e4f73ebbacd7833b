/**
 * Publishes the spend pull's day messages to JetStream, resolving after every ack. They go out at most
 * `rowsPerSecond` rows a second: a 90-day backfill published at once would queue tens of thousands of rows ahead
 * of the live events of the same partitions, and those events would wait seconds for the views
 * (docs/decisions.md, Ad spend from the ad platforms).
 */
import { setTimeout as wait } from 'node:timers/promises';
import { jetstream } from '@nats-io/jetstream';
import { headers as natsHeaders, type NatsConnection } from '@nats-io/nats-core';
import { RECEIVED_AT_HEADER } from '../../../contracts/src/subjects';

export interface SpendMessage {
  subject: string;
  payload: string;
  msgId: string;
  /** Ad-spend rows the message carries (the publisher paces by rows). */
  rows: number;
}

/** Publishes to the EVENTS stream and resolves once JetStream acknowledged every message. */
export type PublishSpend = (messages: readonly SpendMessage[]) => Promise<void>;

export interface SpendPublisherOptions {
  /** Rows a second at most (default 5,000, about half of what the pipeline applies on two cores). */
  rowsPerSecond?: number;
  sleep?: (ms: number) => Promise<void>;
}

export function jetStreamSpendPublisher(nc: NatsConnection, opts: SpendPublisherOptions = {}): PublishSpend {
  const js = jetstream(nc);
  const rowsPerSecond = opts.rowsPerSecond ?? 5_000;
  const sleep = opts.sleep ?? wait;
  return async (messages) => {
    const inFlight = new Set<Promise<unknown>>();
    const started = Date.now();
    let rows = 0;
    for (const m of messages) {
      // Not ahead of the pace: this message's rows wait until the ones before it have had their time.
      const due = started + (rows / rowsPerSecond) * 1000 - Date.now();
      if (due > 0) await sleep(due);
      rows += m.rows;
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
