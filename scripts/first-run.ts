/**
 * The first run of `make run` (docs/product.md, Dashboard): on a database without stores it creates a demo
 * store, loads a month of demo data through the ingestion routes of the API that `make run` started, waits
 * until the pipeline has taken it in, and prints the dashboard's URL with the store's keys. With any store
 * present it does nothing. Run by infra/local/run.sh next to the daemons.
 *   DEMO_ON_FIRST_RUN=false   never
 *   DEMO_EVENTS=<n>           size of the demo (default 20,000 events: about 25 s on two busy cores)
 * It stops when `make run` does (its parent goes) and never stops the daemons: a failure is only reported.
 */
import { createDb, type Db } from '../storage/db';
import { createStore } from '../storage/store-registry';
import { planDemo } from './demo/generate';
import { pushDemo } from './demo/push';
import { requireConnection } from './connection-env';

const DAY_MS = 86_400_000;
export const DEMO_STORE_NAME = 'Demo store';
const DEFAULT_EVENTS = 20_000;

const say = (line: string): void => void process.stderr.write(`[first run] ${line}\n`);

async function until<T>(what: string, fn: () => Promise<T>, ok: (v: T) => boolean, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn().catch(() => undefined as T);
    if (v !== undefined && ok(v)) return v;
    if (Date.now() > deadline) throw new Error(`${what}: not after ${timeoutMs / 1000} s`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

async function storeCount(db: Db): Promise<number> {
  const [row] = await db.query<{ n: string }>('first_run.stores', 'select count(*) as n from stores', []);
  return Number(row?.n ?? 0);
}

async function firstRun(db: Db, apiUrl: string, events: number): Promise<void> {
  if ((await storeCount(db)) > 0) return;
  await until(
    'the API',
    () => fetch(`${apiUrl}/readyz`).then((r) => r.status),
    (s) => s === 200,
    180_000,
  );
  // Checked again now that the API answers: a store created meanwhile (by the CLI) means this is no first run.
  if ((await storeCount(db)) > 0) return;
  const started = performance.now();
  const { store, credentials } = await createStore(db, {
    name: DEMO_STORE_NAME,
    timezone: 'UTC',
    currency: 'USD',
    lookbackDays: 30,
  });
  say(
    `no store yet: created "${DEMO_STORE_NAME}" (${store.store_id}); loading ${events} demo events of the last 30 days…`,
  );
  const plan = planDemo({ events, seed: 1, start: new Date(Date.now() - 29 * DAY_MS), days: 30 });
  await pushDemo({ apiUrl, ingestKey: credentials.ingest_key, stream: plan });
  await until(
    'the pipeline',
    () =>
      db
        .query<{ n: string }>('first_run.events', 'select count(*) as n from event_facts where store_id = $1', [
          store.store_id,
        ])
        .then((r) => Number(r[0]?.n ?? 0)),
    (n) => n >= plan.summary.events,
    300_000,
  );
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  process.stderr.write(
    [
      '',
      `[first run] demo store ready in ${seconds} s: ${plan.summary.events} events, ${plan.summary.orders} orders.`,
      `  Dashboard:      ${apiUrl}/dashboard`,
      `  dashboard key:  ${credentials.dashboard_key}   (read-only: sign in with it)`,
      `  API key:        ${credentials.api_key}`,
      `  ingest key:     ${credentials.ingest_key}`,
      `  access token:   ${credentials.access_token}`,
      '  (keys are shown once; `npm run store -- rotate <kind> --store ' + store.store_id + '` issues new ones)',
      '',
    ].join('\n'),
  );
}

async function main(): Promise<void> {
  if (process.env.DEMO_ON_FIRST_RUN === 'false') return;
  const events = Number(process.env.DEMO_EVENTS ?? DEFAULT_EVENTS);
  if (!Number.isInteger(events) || events < 1) throw new Error(`DEMO_EVENTS must be a positive integer`);
  const apiUrl = `http://127.0.0.1:${process.env.PORT ?? '8080'}`;
  // Gone with `make run`, even when it is killed outright.
  const parent = process.ppid;
  setInterval(() => process.ppid !== parent && process.exit(0), 500).unref();
  const db = createDb({
    connectionString: requireConnection('DATABASE_URL', 'first-run'),
    service: 'first-run',
    max: 2,
  });
  try {
    await firstRun(db, apiUrl, events);
  } finally {
    await db.close();
  }
}

main().catch((err: unknown) => {
  say(`demo store not loaded: ${err instanceof Error ? err.message : String(err)}`);
});
