/**
 * SHA-256 fingerprints of a demo stream, to notice any change of what the generator produces for a seed.
 * `events` is the digest of the NDJSON file `npm run demo -- --ndjson <file>` writes (`sha256sum <file>` gives
 * it); `stream` covers the normalized options and everything a push sends: products, events and order versions in
 * stream order, ad spend rows, and the summary.
 */
import { createHash } from 'node:crypto';
import type { DemoPlan } from './generate';

export interface DemoDigests {
  events: string;
  stream: string;
}

export function demoDigests(plan: DemoPlan): DemoDigests {
  const events = createHash('sha256');
  const stream = createHash('sha256');
  const line = (kind: string, value: unknown): void => {
    stream.update(`${kind} ${JSON.stringify(value)}\n`);
  };
  // An option that is off is left out, so that a stream planned without a newer option keeps its fingerprint.
  const { smsCloser, ...options } = plan.options;
  line('options', smsCloser ? plan.options : options);
  for (const product of plan.products) line('product', product);
  for (const item of plan.items()) {
    if (item.kind === 'event') {
      const json = JSON.stringify(item.event);
      events.update(`${json}\n`);
      stream.update(`event ${item.at} ${json}\n`);
    } else {
      line(`order ${item.at}`, item.order);
    }
  }
  for (const row of plan.adSpend) line('ad_spend', row);
  line('summary', plan.summary);
  return { events: events.digest('hex'), stream: stream.digest('hex') };
}
