/**
 * Migration 0025 copied what is shown of each stored event (page title, IP, user agent, `_fbp`, times, the data of
 * the kinds that keep it) from its raw payload into its facts. Its statements, run again over one store whose facts
 * have those columns emptied, give back what the pipeline itself writes for the same events
 * (`contracts/src/event-shown.ts`): the migration and the pipeline read the payload the same way.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { EventName, StorefrontEvent } from '../../contracts/src/events';
import type { Db } from '../../storage/db';
import type { RunningApi } from '../../query-api/src/app/api';
import type { RunningPipeline } from '../../pipeline/src/app/daemon';
import { createTestStore, startTestApi, startTestPipeline, testDb } from '../support/harness';
import { send } from '../support/journeys';
import { sampleContext, sampleEvent } from '../support/samples';

let db: Db;
let api: RunningApi;
let pipeline: RunningPipeline;

beforeAll(async () => {
  db = testDb();
  api = await startTestApi();
  pipeline = await startTestPipeline();
});

afterAll(async () => {
  await pipeline.stop();
  await api.stop();
  await db.close();
});

const KINDS: EventName[] = [
  'page_viewed',
  'product_viewed',
  'collection_viewed',
  'search_submitted',
  'product_added_to_cart',
  'cart_viewed',
  'checkout_started',
  'checkout_address_info_submitted',
  'lead_form_submitted',
  'checkout_completed',
  'custom_event',
];

/** The statements of migration 0025 that fill the facts from the payloads, limited to one store. */
function backfillStatements(storeId: string): string[] {
  const sql = fs.readFileSync(path.join(__dirname, '../../infra/migrations/0025_facts_shown.sql'), 'utf8');
  const statements = sql
    .replace(/--.*$/gm, '')
    .split(';')
    .map((s) => s.trim())
    .filter((s) => s.startsWith('update event_facts'));
  expect(statements).toHaveLength(2);
  const [fromPayloads, withoutPayload] = statements as [string, string];
  return [`${fromPayloads} and f.store_id = '${storeId}'`, `${withoutPayload} and store_id = '${storeId}'`];
}

/**
 * Not `stored_at`: the migration takes the payload's, the time its batch stored both before the payloads left the
 * batch; now the payload is written a moment after the facts.
 */
const SHOWN = 'event_id, received_at, page_title, client_ip, user_agent, fbp, data::text as data';

it("fills the facts' shown columns from the payloads as the pipeline writes them", async () => {
  const shop = await createTestStore(db);
  const id = shop.store.store_id;
  const events = KINDS.map(
    (name, i) =>
      ({
        ...sampleEvent(name, {
          id: `mig-${i}`,
          clientId: 'mig-1',
          clientIp: `192.0.2.${i + 1}`,
          timestamp: new Date(Date.now() - (60 - i) * 60_000).toISOString(),
          context: sampleContext(`https://shop.example/p-${i}`, '', `Title ${i}`),
        }),
        ...(i % 2 ? { fbp: `fb.1.1700000000000.${i}` } : {}),
      }) as StorefrontEvent,
  );
  await send(api.url, shop.credentials.ingest_key, db, id, events);
  const read = () => db.query(`test.shown`, `select ${SHOWN} from event_facts where store_id = $1 order by 1`, [id]);
  const written = await read();
  expect(written).toHaveLength(KINDS.length);
  // Not vacuous: titles, IPs and the data of the kinds that keep it are there.
  expect(written.filter((r) => r.page_title !== null && r.client_ip !== null)).toHaveLength(KINDS.length);
  expect(written.filter((r) => r.data !== null)).toHaveLength(9);

  await db.query(
    'test.empty_shown',
    `update event_facts set received_at = null, page_title = null, client_ip = null, user_agent = null, fbp = null,
       data = null where store_id = $1`,
    [id],
  );
  for (const statement of backfillStatements(id)) await db.query('test.backfill', statement);
  // The JSON of `data` is compared as values: the payload's text and the pipeline's encoding may space it apart.
  const parsed = (rows: Array<Record<string, unknown>>) =>
    rows.map((r) => ({ ...r, data: r.data === null ? null : JSON.parse(r.data as string) }));
  expect(parsed(await read())).toEqual(parsed(written));
});
