import { EVENT_NAMES } from '../../../contracts/src/events';
import { eventSubject, PUSH_SUBJECT_NAMES } from '../../../contracts/src/subjects';
import {
  validateAdSpendRow,
  validateCustomer,
  validateEvent,
  validateOrder,
  validateProduct,
} from '../../../contracts/src/validation';
import {
  sampleAdSpendRow,
  sampleCustomer,
  sampleEvent,
  sampleOrder,
  sampleProduct,
} from '../../../test/support/samples';
import { loadAllPixelRecordings } from '../../../test/support/shopify-pixel';
import { decodeMessage, type DecodeResult } from './decode-message';

const RECEIVED_AT = Date.parse('2026-01-01T00:00:00Z');
const encoder = new TextEncoder();

describe('decodeMessage of what the API published for recorded Shopify pixel events', () => {
  // The API publishes the validator's output (seq, type and clientIp filled, ids normalized); the pipeline
  // validates it again and must reach the same event, never a poison verdict (a dead letter).
  it.each(loadAllPixelRecordings().map((r) => [`${r.producer}/${r.name}`, r.event] as const))(
    '%s decodes to the event the API accepted',
    (_label, recorded) => {
      const accepted = validateEvent(recorded, {
        now: new Date(RECEIVED_AT),
        clientIpFallback: '198.51.100.4',
        collectDefaults: true,
      });
      if (!accepted.ok) throw new Error(JSON.stringify(accepted.errors));
      const subject = eventSubject(3, 'st_pixel', accepted.value.name);
      const decoded = decodeMessage(subject, encoder.encode(JSON.stringify(accepted.value)), RECEIVED_AT);
      expect(decoded).toEqual({
        kind: 'event',
        storeId: 'st_pixel',
        event: accepted.value,
        warnings: accepted.warnings,
      });
    },
  );
});

describe('decodeMessage of a message the API stamped as validated', () => {
  const decodeBoth = (subject: string, value: unknown) => {
    const data = encoder.encode(JSON.stringify(value));
    return {
      trusted: decodeMessage(subject, data, RECEIVED_AT, true),
      full: decodeMessage(subject, data, RECEIVED_AT),
    };
  };
  const withoutWarnings = (d: DecodeResult) => (d.kind === 'event' ? { ...d, warnings: [] } : d);

  // The stamp skips the validators, so what they publish must decode to what they would decode to again.
  const events = [...EVENT_NAMES.map((name) => sampleEvent(name)), ...loadAllPixelRecordings().map((r) => r.event)].map(
    (input) => {
      const r = validateEvent(input, {
        now: new Date(RECEIVED_AT),
        clientIpFallback: '198.51.100.4',
        collectDefaults: true,
      });
      if (!r.ok) throw new Error(JSON.stringify(r.errors));
      return r.value;
    },
  );
  it.each(events.map((e, i) => [`${i}: ${e.name}`, e] as const))('event %s decodes as if validated again', (_l, e) => {
    const { trusted, full } = decodeBoth(eventSubject(1, 'st_a', e.name), e);
    if (trusted.kind !== 'event') throw new Error(`not an event: ${JSON.stringify(trusted)}`);
    const { json, ...decoded } = trusted;
    expect(decoded).toEqual(withoutWarnings(full));
    // The message's bytes are stored as the raw payload instead of encoding the event again: the same JSON.
    expect(new TextDecoder().decode(json)).toBe(JSON.stringify(e));
  });

  it('stores the JSON without the byte order mark the decoder dropped', () => {
    const e = events[0]!;
    const data = new Uint8Array([0xef, 0xbb, 0xbf, ...encoder.encode(JSON.stringify(e))]);
    const trusted = decodeMessage(eventSubject(1, 'st_a', e.name), data, RECEIVED_AT, true);
    if (trusted.kind !== 'event') throw new Error(`not an event: ${JSON.stringify(trusted)}`);
    expect(Buffer.from(trusted.json!).toString('utf8')).toBe(JSON.stringify(e));
  });

  it.each([
    [PUSH_SUBJECT_NAMES.orders, validateOrder(sampleOrder())],
    [PUSH_SUBJECT_NAMES.products, validateProduct(sampleProduct())],
    [PUSH_SUBJECT_NAMES.customers, validateCustomer(sampleCustomer())],
    [PUSH_SUBJECT_NAMES['ad-spend'], validateAdSpendRow(sampleAdSpendRow())],
  ] as const)('push %s decodes as if validated again', (name, r) => {
    if (!r.ok) throw new Error(JSON.stringify(r.errors));
    const { trusted, full } = decodeBoth(eventSubject(1, 'st_a', name), r.value);
    expect(full.kind).not.toBe('poison');
    expect(trusted).toEqual(full);
  });

  it('validates in full when what it routes on does not hold', () => {
    const e = sampleEvent('page_viewed');
    const renamed = decodeBoth(eventSubject(1, 'st_a', 'product_viewed'), e);
    expect(renamed.trusted).toEqual(renamed.full);
    expect(renamed.trusted.kind).toBe('poison');
    const noId = decodeBoth(eventSubject(1, 'st_a', 'page_viewed'), { ...e, id: 7 });
    expect(noId.trusted).toEqual(noId.full);
    expect(noId.trusted.kind).toBe('poison');
    const order = decodeBoth(eventSubject(1, 'st_a', PUSH_SUBJECT_NAMES.orders), { id: 5 });
    expect(order.trusted.kind).toBe('poison');
  });
});
