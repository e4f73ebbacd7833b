import { eventSubject } from '../../../contracts/src/subjects';
import { validateEvent } from '../../../contracts/src/validation';
import { loadAllPixelRecordings } from '../../../test/support/shopify-pixel';
import { decodeMessage } from './decode-message';

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
