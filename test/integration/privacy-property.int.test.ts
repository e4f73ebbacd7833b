/**
 * Property: for random stores and a random person erased, the views after the erasure equal a recomputation from
 * the facts that remain (zero drift), and equal the views of the same stream with none of that person's messages
 * ever sent (docs/operations.md, Privacy). Batches go through the pipeline's real batch writer and view maintainer
 * against the real PostgreSQL; the erasure is the pipeline's own.
 */
import fc from 'fast-check';
import type { StorefrontEvent } from '../../contracts/src/events';
import type { ShopOrder } from '../../contracts/src/pushes';
import { PUSH_SUBJECT_NAMES } from '../../contracts/src/subjects';
import type { PrivacySubject } from '../../contracts/src/privacy';
import type { Db } from '../../storage/db';
import { VIEW_TABLES } from '../../storage/schema';
import { silentLogger } from '../../runtime/logger';
import { createBatchWriter } from '../../pipeline/src/adapters/pg-batch-writer';
import { createViewMaintainer } from '../../pipeline/src/adapters/pg-view-maintainer';
import { reconcileStore } from '../../pipeline/src/operations/reconcile';
import { erasePerson } from '../../pipeline/src/operations/erase-person';
import { ClientIdentity, personsOfLinks } from '../../pipeline/src/domain/identity';
import { orderClientId, toEventFact, toOrderFact } from '../../pipeline/src/domain/facts';
import { batchItem } from '../support/batch-items';
import { createTestStore, testDb } from '../support/harness';
import {
  addToCart,
  checkoutCompleted,
  checkoutStarted,
  leadForm,
  order,
  pageView,
  paymentInfo,
  productView,
} from '../support/journeys';

let db: Db;
let writer: ReturnType<typeof createBatchWriter>;

beforeAll(() => {
  db = testDb();
  writer = createBatchWriter(db, createViewMaintainer(silentLogger()));
});
afterAll(() => db.close());

type Fact = { kind: 'event'; event: StorefrontEvent } | { kind: 'order'; order: ShopOrder };

const T0 = Date.parse('2026-02-01T00:00:00Z');
const URLS = [
  'https://shop.example/',
  'https://shop.example/?utm_source=google&utm_medium=cpc&utm_campaign=brand',
  'https://shop.example/?utm_source=facebook&utm_medium=paid_social&utm_campaign=spring&utm_id=120&adset_id=1201&ad_id=12011',
  'https://shop.example/?utm_source=klaviyo&utm_medium=email&utm_campaign=news',
  'https://shop.example/products/tee',
];
const VARIANTS = ['45737128657113', '45737128689881'];
const iso = (minutes: number): string => new Date(T0 + minutes * 60_000).toISOString();

/** A random small store: clients joined into persons by emails and checkouts, purchases with their orders. */
const worldArb = fc
  .array(
    fc.record({
      client: fc.integer({ min: 0, max: 5 }),
      minute: fc.integer({ min: 0, max: 60 * 24 * 10 }),
      kind: fc.constantFrom('view', 'view', 'product', 'cart', 'checkout', 'payment', 'purchase', 'lead'),
      url: fc.integer({ min: 0, max: URLS.length - 1 }),
      email: fc.integer({ min: 0, max: 3 }),
      amount: fc.integer({ min: 1, max: 500 }),
      variant: fc.integer({ min: 0, max: 1 }),
    }),
    { minLength: 4, maxLength: 40 },
  )
  .map((steps) => {
    const facts: Fact[] = [];
    steps.forEach((s, i) => {
      const at = { client: `c${s.client}`, at: iso(s.minute), url: URLS[s.url], id: `e${i}` };
      const email = `p${s.email}@example.com`;
      switch (s.kind) {
        case 'view':
          facts.push({ kind: 'event', event: pageView(at) });
          break;
        case 'product':
          facts.push({ kind: 'event', event: productView(at, s.variant as 0 | 1) });
          break;
        case 'cart':
          facts.push({ kind: 'event', event: addToCart(at, s.amount, VARIANTS[s.variant]) });
          break;
        case 'checkout':
          facts.push({ kind: 'event', event: checkoutStarted(at, `tok${i}`, s.amount, email) });
          break;
        case 'payment':
          facts.push({ kind: 'event', event: paymentInfo(at, `tok${i}`, s.amount, email) });
          break;
        case 'lead':
          facts.push({ kind: 'event', event: leadForm(at, email) });
          break;
        case 'purchase': {
          const orderId = String(900000 + i);
          facts.push({
            kind: 'event',
            event: checkoutCompleted(at, { orderId, token: `ptok${i}`, amount: s.amount, email }),
          });
          facts.push({
            kind: 'order',
            order: order({
              id: orderId,
              email,
              total_price: `${s.amount}.00`,
              currency: 'USD',
              created_at: at.at,
              updated_at: iso(s.minute + 1),
              line_items: [
                {
                  id: String(i + 1),
                  variant_id: VARIANTS[s.variant]!,
                  product_id: '8950316581081',
                  quantity: 1,
                  price: '10.00',
                },
              ],
            }),
          });
          break;
        }
      }
    });
    // An order pushed with no checkout event (the server-side fallback), of one of the emails.
    facts.push({
      kind: 'order',
      order: order({
        id: '990001',
        email: 'p1@example.com',
        total_price: '33.00',
        currency: 'USD',
        created_at: iso(600),
        updated_at: iso(601),
        landing_site: '/?utm_source=tiktok&utm_medium=cpc',
      }),
    });
    return facts;
  });

/** The client a fact belongs to: an event's client, an order's pseudo-client. */
const clientOf = (f: Fact): string => (f.kind === 'event' ? f.event.clientId : orderClientId(f.order.id));

/** The persons of a stream by identity's own rule (docs/product.md, Identity): client -> person. */
function personsOf(facts: readonly Fact[]): (client: string) => string {
  const identity = new ClientIdentity();
  for (const f of facts)
    if (f.kind === 'event') identity.addEvent(toEventFact(f.event, 'USD', () => 1).fact);
    else identity.addOrder(toOrderFact(f.order, 'USD', () => 1).fact);
  const union = personsOfLinks(identity.links());
  return (client) => union.find(client);
}

/** Received after every event of the world, so that none is dated in the future. */
const RECEIVED = Date.parse('2026-03-01T00:00:00Z');

function toItem(storeId: string, f: Fact): ReturnType<typeof batchItem> {
  return f.kind === 'event'
    ? batchItem(storeId, 0, f.event.name, f.event, RECEIVED)
    : batchItem(storeId, 0, PUSH_SUBJECT_NAMES.orders, f.order, RECEIVED);
}

async function apply(storeId: string, facts: readonly Fact[], sizes: readonly number[]): Promise<void> {
  for (let i = 0, s = 0; i < facts.length; s++) {
    const n = Math.max(1, sizes[s % sizes.length] ?? 1);
    await writer.applyBatch(facts.slice(i, i + n).map((f) => toItem(storeId, f)));
    i += n;
  }
}

/** Every view of a store, row by row without the store id, in a store-independent order. */
async function views(storeId: string): Promise<Record<string, string[]>> {
  const out: Record<string, string[]> = {};
  for (const table of VIEW_TABLES) {
    const rows = await db.query(`test.${table}`, `select * from ${table} where store_id = $1`, [storeId]);
    out[table] = rows.map(({ store_id: _, ...r }) => JSON.stringify(r)).sort();
  }
  return out;
}

it('an erasure leaves the views a recomputation gives, and those of a stream without the person', async () => {
  await fc.assert(
    fc.asyncProperty(
      worldArb.chain((facts) =>
        fc.record({
          facts: fc.constant(facts),
          // Whom to erase: by one of its clients, an email, or a customer id (checkouts carry `cust-<email>`).
          by: fc.oneof(
            fc.record({ client: fc.constantFrom(...facts.map(clientOf).filter((c) => !c.startsWith('order:'))) }),
            fc.record({ email: fc.integer({ min: 0, max: 3 }).map((n) => `p${n}@example.com`) }),
            fc.record({ customer: fc.integer({ min: 0, max: 3 }).map((n) => `cust-p${n}@example.com`) }),
          ),
          sizes: fc.array(fc.integer({ min: 1, max: 12 }), { minLength: 1, maxLength: 4 }),
          halfLifeDays: fc.constantFrom(0.5, 7),
        }),
      ),
      async ({ facts, by, sizes, halfLifeDays }) => {
        const settings = { timezone: 'Europe/Paris', lookbackDays: 7, halfLifeDays };
        const erased = (await createTestStore(db, settings)).store.store_id;
        const never = (await createTestStore(db, settings)).store.store_id;

        const personOf = personsOf(facts);
        const subject: PrivacySubject = { emails: [], customerIds: [], clientIds: [], orderIds: [] };
        let person: string | null;
        if ('client' in by) {
          subject.clientIds.push(by.client);
          person = personOf(by.client);
        } else {
          const text = 'email' in by ? by.email : by.customer;
          if ('email' in by) subject.emails.push(by.email);
          else subject.customerIds.push(by.customer);
          // The person of the first fact that carries it (none: nobody is erased).
          const carrier = facts.find((f) =>
            JSON.stringify(f.kind === 'event' ? f.event.data : f.order).includes(`"${text}"`),
          );
          person = carrier ? personOf(clientOf(carrier)) : null;
        }
        const isPersons = (f: Fact): boolean => person !== null && personOf(clientOf(f)) === person;

        await apply(erased, facts, sizes);
        await erasePerson({ db }, { storeId: erased, subject, source: 'cli', credential: 'test' });
        await apply(
          never,
          facts.filter((f) => !isPersons(f)),
          sizes,
        );

        expect((await reconcileStore(db, erased)).drift).toEqual([]);
        expect(await views(erased)).toEqual(await views(never));
      },
    ),
    { numRuns: Number(process.env.PROPERTY_RUNS ?? 25), endOnFailure: true },
  );
});
