/**
 * Erasing and exporting a person (docs/operations.md, Privacy) through the real API, pipeline, nats-server and
 * PostgreSQL: a person of two browser clients, an order, a customer record, a link click, queued identity events and
 * a dead letter; another person beside it.
 * - export answers the person as one document;
 * - the erasure answers its counts, and afterwards no column of any table and no message of any stream holds the
 *   person's email, customer id, client ids or IP; the other person is untouched and the views equal a
 *   recomputation; it is idempotent, and the audit names the key and the counts, never the person;
 * - an event of the person published before the erasure and processed after it is dropped and deleted too, and so
 *   is every event of a person sent while it is erased;
 * - a rebuild from the stream after the erasure leaves the person erased, with zero drift;
 * - the command line erases, exports, sets the retention, deletes a store and shows the audit.
 */
import request from 'supertest';
import { connect } from '@nats-io/transport-node';
import { DeliverPolicy, jetstream, jetstreamManager, RetentionPolicy } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/nats-core';
import { API_VERSION } from '../../contracts/src/reports';
import { eventSubject, partitionOf } from '../../contracts/src/subjects';
import type { StorefrontEvent } from '../../contracts/src/events';
import type { Db } from '../../storage/db';
import { silentLogger } from '../../runtime/logger';
import type { RunningApi } from '../../query-api/src/app/api';
import type { RunningPipeline } from '../../pipeline/src/app/daemon';
import { reconcileStore } from '../../pipeline/src/operations/reconcile';
import { replayStore } from '../../pipeline/src/operations/replay';
import { runPendingPrivacyRequests } from '../../pipeline/src/jobs/privacy-requests';
import { createDestination } from '../../webhook-worker/src/destination-repo';
import {
  createTestStore,
  pacer,
  startTestApi,
  startTestPipeline,
  testDb,
  type TestStore,
  waitFor,
} from '../support/harness';
import { checkoutCompleted, checkoutStarted, leadForm, order, pageView } from '../support/journeys';
import { sampleCustomer } from '../support/samples';
import { pipelineCaughtUp } from '../support/stream';
import { metricValue } from '../support/metrics';
import { testEnv, TEST_PARTITIONS } from '../support/env';
import { runScript } from '../support/processes';

/** The person erased: identifiers nothing else in the test databases or streams contains. */
const X = {
  email: 'erase.me+7f3c9b@privacy.example',
  customerId: '9007199254740993456',
  clients: ['x-client-one-7f3c9b', 'x-client-two-7f3c9b'],
  ip: '198.51.100.77',
  orderId: '7000000000000000123',
};
/** The person kept. */
const Y = {
  email: 'keep.me+41d2@privacy.example',
  client: 'y-client-41d2',
  ip: '192.0.2.44',
  orderId: '7000000000000000456',
};

let db: Db;
/** The database's time when this file began: stores created before it belong to other test files. */
let fileStartedAt: string;
let api: RunningApi;
let pipeline: RunningPipeline | null = null;
let nc: NatsConnection;
let shop: TestStore;
let storeId: string;

const minutesAgo = (m: number): string => new Date(Date.now() - m * 60_000).toISOString();
const withIp = (e: StorefrontEvent, ip: string): StorefrontEvent => ({ ...e, clientIp: ip });

/** The privacy operations allow 5 requests per second per key. */
const paced = pacer();
function post(path: string, body: unknown, key = shop.credentials.api_key) {
  return paced(`${key}:${path}`, async () =>
    request(api.url)
      .post(`/${API_VERSION}/api/${path}`)
      .set('ApiKey', key)
      .send(body as object),
  );
}

async function ingest(path: string, body: unknown): Promise<void> {
  const res = await request(api.url)
    .post(`/${API_VERSION}/api/${path}`)
    .set('X-Ingest-Key', shop.credentials.ingest_key)
    .send(body as object);
  if (res.status !== 200) throw new Error(`${path}: ${res.status} ${JSON.stringify(res.body)}`);
}

async function caughtUp(): Promise<void> {
  await pipelineCaughtUp(nc);
}

/**
 * Rows of every table of the database whose text holds any of `needles`, by table. Rows of stores created before
 * this file (other test files sharing the worker's database) are left out; tables without a store are read whole.
 */
async function tablesHolding(needles: readonly string[]): Promise<Record<string, number>> {
  const tables = await db.query<{ table_name: string; scoped: boolean }>(
    'test.tables',
    `select t.table_name, bool_or(c.column_name = 'store_id') as scoped
     from information_schema.tables t join information_schema.columns c using (table_schema, table_name)
     where t.table_schema = current_schema() and t.table_type = 'BASE TABLE' group by 1`,
  );
  const found: Record<string, number> = {};
  for (const { table_name: t, scoped } of tables) {
    const [row] = await db.query<{ n: string }>(
      'test.scan',
      `select count(*) as n from ${t} x where x::text like any($1::text[])
         ${scoped ? 'and (x.store_id is null or x.store_id not in (select store_id from stores where created_at < $2))' : ''}`,
      scoped ? [needles.map((n) => `%${n}%`), fileStartedAt] : [needles.map((n) => `%${n}%`)],
    );
    if (Number(row!.n) > 0) found[t] = Number(row!.n);
  }
  return found;
}

/**
 * Messages of every stream whose bytes hold any of `needles`: `STREAM:seq`. As for the tables, messages of stores
 * created before this file are left out (their subjects name the store): other test files' generated visitors may
 * share an address with the person.
 */
async function messagesHolding(needles: readonly string[]): Promise<string[]> {
  const jsm = await jetstreamManager(nc);
  const js = jetstream(nc);
  const older = new Set(
    (
      await db.query<{ store_id: string }>('test.older_stores', 'select store_id from stores where created_at < $1', [
        fileStartedAt,
      ])
    ).map((r) => r.store_id),
  );
  const wanted = needles.map((n) => Buffer.from(n));
  const found: string[] = [];
  const check = (stream: string, seq: number, subject: string, data: Uint8Array) => {
    if (subject.split('.').some((token) => older.has(token))) return;
    const bytes = Buffer.from(data);
    if (wanted.some((n) => bytes.includes(n))) found.push(`${stream}:${seq}`);
  };
  for await (const info of jsm.streams.list()) {
    const stream = info.config.name;
    if (info.state.messages === 0) continue;
    if (info.config.retention === RetentionPolicy.Workqueue) {
      // A work queue takes no second consumer beside its worker's: each message read by the server's lookup.
      for (let seq = info.state.first_seq; ;) {
        const answer = (
          await nc.request(`$JS.API.STREAM.MSG.GET.${stream}`, JSON.stringify({ next_by_subj: '>', seq }))
        ).json<{ message?: { seq: number; subject: string; data?: string } }>();
        if (!answer.message) break;
        check(stream, answer.message.seq, answer.message.subject, Buffer.from(answer.message.data ?? '', 'base64'));
        seq = answer.message.seq + 1;
      }
      continue;
    }
    const consumer = await js.consumers.get(stream, { deliver_policy: DeliverPolicy.All });
    const last = info.state.last_seq;
    for (let done = false; !done;) {
      const batch = await consumer.fetch({ max_messages: 1000, expires: 2000 });
      let n = 0;
      for await (const m of batch) {
        n++;
        check(stream, m.seq, m.subject, m.data);
        if (m.seq >= last || m.info.pending === 0) done = true;
        if (done) break;
      }
      if (n === 0) done = true;
    }
  }
  return found;
}

const X_NEEDLES = [X.email, X.customerId, ...X.clients, X.ip];
const Y_NEEDLES = [Y.email, Y.client, Y.ip];

beforeAll(async () => {
  db = testDb();
  fileStartedAt = (await db.query<{ t: string }>('test.now', 'select now()::text as t'))[0]!.t;
  nc = await connect({ servers: testEnv.natsUrl });
  api = await startTestApi({ API_TRUST_PROXY: 'true', API_PRIVACY_WAIT_MS: '30000' });
  pipeline = await startTestPipeline();
  shop = await createTestStore(db);
  storeId = shop.store.store_id;
  await createDestination(db, {
    storeId,
    url: 'https://hooks.example/privacy-test',
    events: ['Checkout Started', 'Subscribe', 'Active On site'],
  });

  const [x1, x2] = X.clients as [string, string];
  await ingest('events', [
    withIp(
      pageView({ client: x1, at: minutesAgo(90), url: 'https://shop.example/?utm_source=google&utm_medium=cpc' }),
      X.ip,
    ),
    withIp(checkoutStarted({ client: x1, at: minutesAgo(80) }, 'x-token-7f3c9b', 120, X.email), X.ip),
    withIp(
      checkoutCompleted(
        { client: x1, at: minutesAgo(70) },
        { orderId: X.orderId, token: 'x-token-7f3c9b', amount: 120, email: X.email, customerId: X.customerId },
      ),
      X.ip,
    ),
    withIp(
      pageView({ client: x2, at: minutesAgo(60), url: 'https://shop.example/?utm_source=newsletter&utm_medium=email' }),
      X.ip,
    ),
    withIp(leadForm({ client: x2, at: minutesAgo(59) }, X.email), X.ip),
    withIp(
      pageView({
        client: Y.client,
        at: minutesAgo(50),
        url: 'https://shop.example/?utm_source=facebook&utm_medium=paid_social',
      }),
      Y.ip,
    ),
    withIp(
      checkoutCompleted(
        { client: Y.client, at: minutesAgo(40) },
        { orderId: Y.orderId, token: 'y-token-41d2', amount: 80, email: Y.email, customerId: '5550001' },
      ),
      Y.ip,
    ),
  ]);
  const xOrder = order({
    id: X.orderId,
    email: X.email,
    checkout_token: 'x-token-7f3c9b',
    customer: { id: X.customerId, email: X.email, first_name: 'Erin', last_name: 'Erased' },
    total_price: '120.00',
    created_at: minutesAgo(70),
    updated_at: minutesAgo(69),
  });
  await ingest('store/orders', [xOrder]);
  await ingest('store/customers', [
    sampleCustomer({
      id: X.customerId,
      email: X.email,
      addresses: [],
      default_address: null,
      last_order_id: X.orderId,
      admin_graphql_api_id: `gid://shopify/Customer/${X.customerId}`,
    }),
  ]);
  // A click on a tracking link, from X's browser and address.
  const link = await post('link-builder/create', {
    landing_page: 'https://shop.example/spring',
    campaign: 'spring',
    source: 'newsletter',
    medium: 'email',
  });
  expect(link.status).toBe(200);
  const click = await request(api.url)
    .get(`/${String(link.body.data.code)}`)
    .redirects(0)
    .set('Cookie', `_shopify_y=${x1}`)
    .set('X-Forwarded-For', X.ip);
  expect(click.status).toBe(302);
  // A message the pipeline cannot take: dead-lettered with its payload, which names X.
  const poison = { id: 'x-poison-7f3c9b', clientId: x1, clientIp: X.ip, name: 'page_viewed', data: { email: X.email } };
  const js = jetstream(nc);
  await js.publish(
    eventSubject(partitionOf(storeId, x1, TEST_PARTITIONS), storeId, 'page_viewed'),
    JSON.stringify(poison),
  );
  await caughtUp();
  await waitFor(
    () => tablesHolding([x1]).then((t) => t.link_clicks ?? 0),
    (n) => n === 1,
  );
});

afterAll(async () => {
  await pipeline?.stop();
  await api.stop();
  await nc.close();
  await db.close();
});

describe('a person of two clients, an order, a customer record, a click, queued webhooks and a dead letter', () => {
  it('is stored everywhere the erasure must reach (the premise of what follows)', async () => {
    const tables = await tablesHolding(X_NEEDLES);
    for (const t of ['raw_events', 'event_facts', 'order_facts', 'shop_orders', 'shop_customers', 'identity_links'])
      expect(tables[t]).toBeGreaterThan(0);
    for (const t of ['clients', 'sessions', 'conversions', 'link_clicks', 'dead_letters', 'message_owners'])
      expect(tables[t]).toBeGreaterThan(0);
    const messages = await messagesHolding(X_NEEDLES);
    expect(messages.some((m) => m.startsWith('EVENTS:'))).toBe(true);
    expect(messages.some((m) => m.startsWith('WEBHOOKS:'))).toBe(true);
  });

  it('export answers the person as one document, ids exact', async () => {
    const res = await post('privacy/export', { email: X.email.toUpperCase() });
    expect(res.status).toBe(200);
    const doc = res.body.data;
    expect(doc.identifiers).toEqual({
      client_ids: [...X.clients].sort(),
      emails: [X.email],
      customer_ids: [X.customerId],
      order_ids: [X.orderId],
    });
    expect(doc.events).toHaveLength(5);
    expect(doc.events[0].payload.clientIp).toBe(X.ip);
    expect(doc.orders).toEqual([expect.objectContaining({ order_id: X.orderId, customer_id: X.customerId })]);
    expect(doc.customers).toEqual([expect.objectContaining({ id: X.customerId })]);
    expect(doc.link_clicks).toEqual([expect.objectContaining({ client_id: X.clients[0], ip: X.ip })]);
    expect(JSON.stringify(doc)).not.toContain(Y.email);
  });

  it('bad requests name the field; a dashboard key cannot erase', async () => {
    expect((await post('privacy/erase', {})).body).toMatchObject({
      code: 400,
      message: expect.stringMatching(/^email: exactly one/),
    });
    expect((await post('privacy/erase', { email: X.email, client_id: 'a' })).status).toBe(400);
    expect((await post('privacy/erase', { customer_id: '  ' })).body.message).toBe(
      'customer_id: must be a non-empty string',
    );
    expect((await post('privacy/export', { email: 'nobody' })).body.message).toBe('email: is not an email address');
    expect((await post('privacy/erase', { email: 42 })).status).toBe(400);
    expect((await post('privacy/erase', { email: X.email }, shop.credentials.dashboard_key)).status).toBe(403);
  });

  it('erasure answers its counts; afterwards no table or stream holds the person, and the views are a recomputation', async () => {
    const res = await post('privacy/erase', { customer_id: X.customerId });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ status: 'done', request_id: expect.stringMatching(/^pr_/) });
    const removed = res.body.data.removed;
    expect(removed).toMatchObject({
      persons: 1,
      clients: 3, // two browsers and the order's pseudo-client
      raw_events: 5,
      event_facts: 5,
      orders: 1,
      customers: 1,
      link_clicks: 1,
      dead_letters: 1,
    });
    expect(removed.conversions).toBeGreaterThan(0);
    expect(removed.sessions).toBeGreaterThan(0);
    expect(removed.stream_messages).toBeGreaterThanOrEqual(8);
    expect(removed.webhook_messages).toBeGreaterThan(0);

    expect(await tablesHolding(X_NEEDLES)).toEqual({});
    expect(await messagesHolding(X_NEEDLES)).toEqual([]);
    // The other person is all there, and every view equals the recomputation from the facts that remain.
    expect(await tablesHolding(Y_NEEDLES)).toMatchObject({ raw_events: 2, event_facts: 2 });
    expect((await reconcileStore(db, storeId)).drift).toEqual([]);
  });

  it('a second erasure removes nothing more; the audit names the key and the counts, never the person', async () => {
    const again = await post('privacy/erase', { email: X.email });
    expect(again.body.data.status).toBe('done');
    expect(Object.values(again.body.data.removed as Record<string, number>).every((n) => n === 0)).toBe(true);
    const audit = await db.query<{
      action: string;
      source: string;
      credential: string;
      counts: Record<string, number>;
    }>('test.audit', 'select action, source, credential, counts from privacy_audit where store_id = $1 order by id', [
      storeId,
    ]);
    expect(audit.map((a) => a.action)).toEqual(['export', 'erase', 'erase']);
    expect(audit[1]).toMatchObject({ source: 'api', credential: expect.stringMatching(/^api_key:[0-9a-f]{12}$/) });
    expect(audit[1]!.counts.event_facts).toBe(5);
    expect(JSON.stringify(audit)).not.toMatch(/erase\.me|7f3c9b|9007199254740993456|198\.51\.100\.77/);
  });

  it('an event of the person published before the erasure and processed after it is dropped and leaves the stream', async () => {
    await pipeline!.stop();
    pipeline = null;
    const late = withIp(pageView({ client: X.clients[1]!, at: minutesAgo(5) }), X.ip);
    await ingest('events', [late]);
    // No pipeline to run it: the request waits for the job.
    const res = await post('privacy/erase', { client_id: X.clients[1] });
    expect(res.body.data).toMatchObject({ status: 'pending', removed: null });
    const jsm = await jetstreamManager(nc);
    expect(await runPendingPrivacyRequests({ db, nc, jsm }, silentLogger())).toEqual({ ran: 1, failed: 0 });

    pipeline = await startTestPipeline();
    const erased = pipeline.metrics.eventsConsumed;
    await waitFor(
      () => metricValue(erased, { result: 'erased' }),
      (n) => n === 1,
    );
    await caughtUp();
    expect(await tablesHolding(X_NEEDLES)).toEqual({});
    expect(
      await waitFor(
        () => messagesHolding(X_NEEDLES),
        (m) => m.length === 0,
      ),
    ).toEqual([]);
  });

  it('an erasure beside the pipeline busy with the same person leaves nothing of it, whatever the interleaving', async () => {
    // A third person, its events sent in many requests while it is erased through the API.
    const busy = { email: 'busy.person+c41a@privacy.example', clients: ['busy-one-c41a', 'busy-two-c41a'] };
    const burst = (round: number) =>
      Array.from({ length: 20 }, (_, i) =>
        i % 5 === 4
          ? checkoutStarted(
              { client: busy.clients[i % 2]!, at: minutesAgo(30 - round) },
              `busy-${round}-${i}`,
              10,
              busy.email,
            )
          : pageView({ client: busy.clients[i % 2]!, at: minutesAgo(30 - round) }),
      );
    await ingest('events', burst(0));
    await caughtUp();
    const sending = (async () => {
      for (let round = 1; round <= 10; round++) await ingest('events', burst(round));
    })();
    const res = await post('privacy/erase', { email: busy.email });
    await sending;
    expect({ status: res.status, data: res.body.data }).toMatchObject({
      status: 200,
      data: { status: 'done', removed: expect.objectContaining({ persons: 1 }) },
    });
    await caughtUp();
    const needles = [busy.email, ...busy.clients];
    expect(await tablesHolding(needles)).toEqual({});
    expect(
      await waitFor(
        () => messagesHolding(needles),
        (m) => m.length === 0,
      ),
    ).toEqual([]);
    expect((await reconcileStore(db, storeId)).drift).toEqual([]);
  });

  it('a rebuild from the stream after the erasure leaves the person erased, with zero drift', async () => {
    const before = await tablesHolding(Y_NEEDLES);
    await replayStore(nc, db, { storeId, rebuild: true }, silentLogger());
    expect(await tablesHolding(X_NEEDLES)).toEqual({});
    expect(await tablesHolding(Y_NEEDLES)).toEqual(before);
    expect((await reconcileStore(db, storeId)).drift).toEqual([]);
  });
});

describe('the command line', () => {
  it('erases the other person, names a wrong option, sets the retention and shows the audit', async () => {
    const bad = await runScript('store.ts', ['erase', '--store', storeId, '--email', Y.email, '--client-id', Y.client]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--email.*exactly one of/);

    const erased = await runScript('store.ts', ['erase', '--store', storeId, '--client-id', Y.client]);
    expect(erased.code).toBe(0);
    expect(JSON.parse(erased.stdout)).toMatchObject({ persons: 1, raw_events: 2, orders: 0 });
    expect(await tablesHolding(Y_NEEDLES)).toEqual({});

    const retention = await runScript('store.ts', ['retention', '--store', storeId, '--days', '30']);
    expect(JSON.parse(retention.stdout)).toEqual({
      store_id: storeId,
      raw_retention_days: 30,
      raw_payloads_stored: true,
    });
    const audit = await runScript('store.ts', ['privacy', 'audit', '--store', storeId]);
    const rows = JSON.parse(audit.stdout) as Array<{ source: string; credential: string }>;
    expect(rows.at(-1)).toMatchObject({ source: 'cli', credential: expect.stringMatching(/^cli:/) });
  });

  it('deletes a store: every row and stream message, its keys refused', async () => {
    const other = await createTestStore(db);
    const id = other.store.store_id;
    const res = await request(api.url)
      .post(`/${API_VERSION}/api/events`)
      .set('X-Ingest-Key', other.credentials.ingest_key)
      .send([pageView({ client: 'doomed-client-1', at: minutesAgo(3) })]);
    expect(res.status).toBe(200);
    await caughtUp();
    const run = await runScript('store.ts', ['delete', '--store', id]);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ stores: 1, raw_events: 1, credentials: 4, stream_messages: 1 });
    expect(await tablesHolding(['doomed-client-1'])).toEqual({});
    expect(await messagesHolding(['doomed-client-1'])).toEqual([]);
    const refused = await request(api.url)
      .post(`/${API_VERSION}/api/events`)
      .set('X-Ingest-Key', other.credentials.ingest_key)
      .send([pageView({ client: 'doomed-client-2', at: minutesAgo(1) })]);
    expect(refused.status).toBe(401);
  });
});
