import { eventSubject, PUSH_SUBJECT_NAMES } from '../../../contracts/src/subjects';
import { generateDemoStream } from '../../../scripts/demo/generate';
import { decodeMessage } from '../domain/decode-message';
import { StreamFacts } from '../domain/stream-facts';
import { eventFactLine } from '../adapters/pg-derived-facts';
import { eventShownOf } from '../../../contracts/src/event-shown';
import type { StoreSettings } from '../adapters/pg-fact-store';
import { BatchEncoder, type EncodedBatch, startRebuildDecoder } from './rebuild-decoder';

const STORE: StoreSettings = {
  storeId: 'st_decoder',
  timezone: 'UTC',
  currency: 'EUR',
  lookbackDays: 30,
  halfLifeDays: 7,
};
const RATES = new Map([['USD', 0.9]]);

/** The demo stream as the stream's messages: subject, bytes, sequence; and one that is not JSON. */
function demoMessages() {
  const demo = generateDemoStream({ events: 1500, seed: 5, start: new Date('2026-02-01T00:00:00Z'), days: 10 });
  const encode = (name: string, body: unknown) => ({ subject: eventSubject(3, STORE.storeId, name), body });
  const bodies = [
    ...demo.products.map((p) => encode(PUSH_SUBJECT_NAMES.products, p)),
    ...demo.events.map((e) => encode(e.name, e)),
    ...demo.orders.map((o) => encode(PUSH_SUBJECT_NAMES.orders, o)),
  ];
  const messages = bodies.map((m, i) => ({
    subject: m.subject,
    seq: i + 1,
    receivedAt: Date.parse('2026-02-12T00:00:00Z'),
    validated: true,
    data: new TextEncoder().encode(JSON.stringify(m.body)),
  }));
  messages.push({ ...messages[0]!, seq: messages.length + 1, data: new TextEncoder().encode('{not json') });
  return messages;
}

describe('the rebuild decoder', () => {
  it('derives on its worker thread, batch after batch, what one thread derives from the messages in order', async () => {
    const messages = demoMessages();
    // On this thread: every message decoded and added in order.
    const expected = new StreamFacts(STORE.currency, (c) => RATES.get(c));
    let expectedLines = '';
    for (const m of messages) {
      const d = decodeMessage(m.subject, m.data, m.receivedAt, m.validated);
      if (d.kind === 'poison') continue;
      const fact = expected.add(d, m.seq);
      if (fact && d.kind === 'event')
        expectedLines += eventFactLine(STORE.storeId, { fact, shown: eventShownOf(d.event), receivedAt: m.receivedAt });
    }

    const decoder = startRebuildDecoder(STORE, RATES);
    try {
      const encoder = new BatchEncoder();
      const decoded = [];
      for (const m of messages) {
        encoder.add(m);
        if (encoder.size === 400) decoded.push(decoder.decode(encoder.take()));
      }
      decoded.push(decoder.decode(encoder.take()));
      const batches = await Promise.all(decoded);
      expect(batches.reduce((n, b) => n + b.processed, 0)).toBe(messages.length);
      expect(batches.map((b) => b.lines).join('')).toBe(expectedLines);
      expect(batches.flatMap((b) => b.deadLetters)).toEqual([
        expect.objectContaining({ seq: messages.length, payload: '{not json' }),
      ]);
      expect(await decoder.finish()).toEqual(expected.snapshot());
    } finally {
      await decoder.close();
    }
  }, 30_000);

  it('fails the batch it failed on and every one after', async () => {
    const decoder = startRebuildDecoder(STORE, RATES);
    try {
      const broken = { seqs: [1], subjects: null, bytes: new Uint8Array(4) } as unknown as EncodedBatch;
      await expect(decoder.decode(broken)).rejects.toThrow();
      const encoder = new BatchEncoder();
      encoder.add(demoMessages()[0]!);
      await expect(decoder.decode(encoder.take())).rejects.toThrow();
      await expect(decoder.finish()).rejects.toThrow();
    } finally {
      await decoder.close();
    }
  }, 30_000);
});
