/**
 * Property: what the API accepts, the pipeline decodes and derives without error, into values PostgreSQL
 * stores (docs/decisions.md, Ingestion). The API's acceptance is run as the ingest route runs it (the storable
 * scan, then the contracts validator); the published JSON then goes through the pipeline's decode, with and
 * without the validated stamp, and the fact derivations. The times, keys and touchpoint values they yield
 * must be within what PostgreSQL takes: four-digit years from 0001 (JavaScript writes others as `+010000-`
 * or `0000-`, which PostgreSQL refuses), offsets below 16 hours, index keys within an index entry.
 */
import fc from 'fast-check';
import { eventSubject, headerSafe, PUSH_SUBJECT_NAMES } from '../../../contracts/src/subjects';
import {
  validateAdSpendRow,
  validateCustomer,
  validateEvent,
  validateOrder,
  validateProduct,
  type ValidationResult,
} from '../../../contracts/src/validation';
import { findUnstorable } from '../../../contracts/src/validation/storable';
import { INGEST_ROUTES, ingestItem, type IngestRoute } from '../../../test/support/ingest-arbitraries';
import { decodeMessage, type DecodedFact } from './decode-message';
import { productInfoOfEvent, toAdSpendFact, toEventFact, toOrderFact, toVariantCosts } from './facts';
import { deriveTouchpoint } from './touchpoint';

const NOW = Date.parse('2026-03-01T12:00:00Z');
const rateOf = () => 1.25;
const bytes = (s: string) => Buffer.byteLength(s, 'utf8');

/** The API's acceptance of one item of `route` (query-api/src/services/ingest.service.ts). */
function accept(route: IngestRoute, item: unknown): ValidationResult<unknown> {
  const root = route === 'events' || route === 'collect' ? 'event' : 'item';
  const unstorable = findUnstorable(item, root);
  if (unstorable) return { ok: false, errors: [unstorable] };
  switch (route) {
    case 'events':
    case 'collect':
      return validateEvent(item, {
        now: new Date(NOW),
        ...(route === 'collect' ? { clientIpFallback: '198.51.100.1', collectDefaults: true } : {}),
      });
    case 'orders':
      return validateOrder(item);
    case 'products':
      return validateProduct(item);
    case 'customers':
      return validateCustomer(item);
    case 'ad-spend': {
      const r = validateAdSpendRow(item);
      if (r.ok) r.value.updated_at ??= new Date(NOW).toISOString();
      return r;
    }
  }
}

function subjectOf(route: IngestRoute, value: unknown): string {
  switch (route) {
    case 'events':
    case 'collect':
      return eventSubject(0, 'store-1', (value as { name: string }).name);
    case 'orders':
      return eventSubject(0, 'store-1', PUSH_SUBJECT_NAMES.orders);
    case 'products':
      return eventSubject(0, 'store-1', PUSH_SUBJECT_NAMES.products);
    case 'customers':
      return eventSubject(0, 'store-1', PUSH_SUBJECT_NAMES.customers);
    case 'ad-spend':
      return eventSubject(0, 'store-1', PUSH_SUBJECT_NAMES['ad-spend']);
  }
}

/** A time as the pipeline writes it: the ISO form of an instant PostgreSQL reads back. */
function expectWritableInstant(what: string, ms: number): void {
  const iso = Number.isFinite(ms) ? new Date(ms).toISOString() : String(ms);
  expect({ what, iso, ok: /^\d{4}-/.test(iso) && !iso.startsWith('0000-') }).toEqual({ what, iso, ok: true });
}

/** A time as sent, stored as text PostgreSQL parses: a four-digit year from 0001, an offset below 16 hours. */
function expectWritableText(what: string, text: string | null | undefined): void {
  if (text === null || text === undefined) return;
  const offsetHours = Number(/([+-])(\d{2}):\d{2}$/.exec(text)?.[2] ?? 0);
  expect({ what, text, ok: !text.startsWith('0000-') && offsetHours < 16 }).toEqual({ what, text, ok: true });
  expectWritableInstant(what, Date.parse(text));
}

/** Every fact the pipeline derives from the decoded message, checked for storable times and keys. */
function deriveAll(fact: DecodedFact): void {
  switch (fact.kind) {
    case 'event': {
      const { fact: e } = toEventFact(fact.event, 'USD', rateOf);
      productInfoOfEvent(fact.event);
      expectWritableText('event timestamp', fact.event.timestamp);
      expectWritableInstant('event fact time', e.at);
      const t = deriveTouchpoint({
        pageUrl: e.pageUrl,
        referrer: e.referrer,
        ownHosts: ['shop.example'],
        resolveLink: () => undefined,
      });
      // The widest rollup keys hold the channel, source, medium, campaign and landing page.
      const keyBytes = [t.channel, t.source, t.medium, t.campaign, t.landingPage].map(bytes).reduce((a, b) => a + b);
      expect({ keyBytes, ok: keyBytes <= 2100 }).toEqual({ keyBytes, ok: true });
      break;
    }
    case 'order': {
      const { fact: o } = toOrderFact(fact.order, 'USD', rateOf);
      expectWritableText('order updated_at', fact.order.updated_at);
      expectWritableInstant('order created_at', o.createdAt);
      expect(Number.isSafeInteger(o.valueMicros) && Number.isSafeInteger(o.refundedMicros)).toBe(true);
      break;
    }
    case 'product':
      expectWritableText('product updated_at', fact.product.updated_at);
      for (const c of toVariantCosts(fact.product)) expect(Number.isSafeInteger(c.costMicros)).toBe(true);
      break;
    case 'customer':
      expectWritableText('customer updated_at', fact.customer.updated_at);
      break;
    case 'ad_spend':
      for (const row of fact.rows) {
        const { fact: a } = toAdSpendFact(row, 'USD', rateOf);
        expectWritableText('ad spend updated_at', row.updated_at);
        expectWritableText('ad spend date', `${a.day}T00:00:00Z`);
        // The primary key: day, platform (lower-cased), account, campaign, ad set and ad ids.
        const keyBytes = [a.platform, a.accountId, a.campaignId, a.adsetId, a.adId].map(bytes).reduce((x, y) => x + y);
        expect({ keyBytes, ok: keyBytes <= 2560 }).toEqual({ keyBytes, ok: true });
        expect([a.spendMicros, a.convValueMicros, a.impressions, a.clicks].every(Number.isSafeInteger)).toBe(true);
      }
      break;
    case 'link_click':
      throw new Error('no route publishes link clicks');
  }
}

describe('accepted by the API => decoded, derived and storable by the pipeline', () => {
  it.each(INGEST_ROUTES)('%s', (route) => {
    let n = 0;
    const now = () => new Date(NOW - 60_000).toISOString();
    let accepted = 0;
    fc.assert(
      fc.property(
        ingestItem(route, () => ++n, now),
        (item) => {
          const r = accept(route, item);
          if (!r.ok) return;
          accepted++;
          const json = Buffer.from(JSON.stringify(r.value));
          // The de-duplication id goes in a NATS header: no control character may reach it.
          const id = (r.value as { id?: unknown }).id;
          const key = typeof id === 'string' ? id : '';
          expect(headerSafe(key)).toMatch(/^[\x21-\x7e]*$/);
          for (const validated of [true, false]) {
            const decoded = decodeMessage(subjectOf(route, r.value), json, NOW, validated);
            if (decoded.kind === 'poison') throw new Error(`poison (validated ${validated}): ${decoded.reason}`);
            deriveAll(decoded);
          }
        },
      ),
      { numRuns: 300, seed: 20261124 },
    );
    // Most generated items are accepted: the property is not vacuous.
    expect(accepted).toBeGreaterThan(50);
  });
});
