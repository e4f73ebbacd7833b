/**
 * Demo data: a realistic storefront stream for one store, pushed through the ingestion routes.
 *   npm run demo -- --ingest-key ik_... [--events 5000] [--seed 1] [--days 30] [--start YYYY-MM-DD]
 *   npm run demo -- --dry-run ...            plan and generate, print counts and a sample, push nothing
 *   npm run demo -- --ndjson events.ndjson   write the events as NDJSON instead of pushing
 * The same seed, start and days always give the same stream. Prints a JSON summary at the end.
 * Exit codes: 0 ok, 1 push (or write) failed, 2 bad arguments.
 */
import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { DEFAULT_DEMO_DAYS, DEFAULT_STORE_HOST, planDemo, type DemoPlan } from './demo/generate';
import { DemoPushError, pushDemo, type PushProgress } from './demo/push';
import { positiveInteger } from './cli-numbers';

const DAY_MS = 24 * 60 * 60 * 1000;

function parseSeed(value: string): number {
  if (!/^-?\d+$/.test(value.trim())) throw new InvalidArgumentError('seed must be an integer');
  const n = Number(value);
  if (!Number.isSafeInteger(n)) throw new InvalidArgumentError('seed must be a safe integer');
  return n;
}

function parseStart(value: string): Date {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value.trim());
  const date = m ? new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]))) : null;
  if (!date || date.toISOString().slice(0, 10) !== value.trim()) {
    throw new InvalidArgumentError('start must be a date YYYY-MM-DD');
  }
  return date;
}

function parseUrl(value: string): string {
  if (!URL.canParse(value) || !/^https?:$/.test(new URL(value).protocol)) {
    throw new InvalidArgumentError('api-url must be an http(s) URL, e.g. http://127.0.0.1:8080');
  }
  return value.replace(/\/+$/, '');
}

interface DemoCliOptions {
  events: number;
  seed: number;
  days: number;
  start?: Date;
  storeHost: string;
  smsCloser: boolean;
  apiUrl: string;
  ingestKey?: string;
  dryRun: boolean;
  ndjson?: string;
  batchSize: number;
  concurrency: number;
  progress: boolean;
}

/** Writes the events, one JSON object a line, honouring back-pressure. */
async function writeNdjson(plan: DemoPlan, file: string): Promise<number> {
  const out = createWriteStream(file, { encoding: 'utf8' });
  const failed = new Promise<never>((_, reject) => out.once('error', reject));
  failed.catch(() => undefined);
  let lines: string[] = [];
  let n = 0;
  const write = async (chunk: string): Promise<void> => {
    if (!out.write(chunk)) await Promise.race([once(out, 'drain'), failed]);
  };
  for (const event of plan.events()) {
    lines.push(JSON.stringify(event));
    n++;
    if (lines.length === 1000) {
      await write(`${lines.join('\n')}\n`);
      lines = [];
    }
  }
  if (lines.length > 0) await write(`${lines.join('\n')}\n`);
  out.end();
  await Promise.race([once(out, 'finish'), failed]);
  return n;
}

function progressPrinter(total: number, enabled: boolean): { update: (p: PushProgress) => void; done: () => void } {
  if (!enabled) return { update: () => undefined, done: () => undefined };
  const started = performance.now();
  let last = 0;
  const line = (p: PushProgress): string => {
    const s = (performance.now() - started) / 1000;
    const pct = total === 0 ? 100 : Math.floor((p.events / total) * 100);
    return `demo: ${p.events}/${total} events (${pct}%), ${p.orders} orders, ${Math.round(p.events / Math.max(s, 0.001))} events/s`;
  };
  return {
    update: (p) => {
      const now = performance.now();
      if (now - last < 250) return;
      last = now;
      process.stderr.write(`\r${line(p)}\u001b[K`);
    },
    done: () => process.stderr.write('\n'),
  };
}

function summaryOf(plan: DemoPlan, mode: string, seconds: number, extra: Record<string, unknown> = {}) {
  const s = plan.summary;
  return {
    mode,
    seed: plan.options.seed,
    start: plan.options.start.toISOString().slice(0, 10),
    days: plan.options.days,
    store_host: plan.options.storeHost,
    events: s.events,
    orders: s.orders,
    order_versions: s.orderVersions,
    products: s.products,
    ad_spend_rows: s.adSpendRows,
    persons: s.persons,
    clients: s.clients,
    sessions: s.sessions,
    purchase_rate: s.purchaseRate,
    orders_without_event: s.ordersWithoutEvent,
    repeat_orders: s.repeatOrders,
    refunded_orders: s.refundedOrders,
    cancelled_orders: s.cancelledOrders,
    revenue: s.revenue,
    ad_spend: s.adSpend,
    channels: s.channels,
    ...extra,
    seconds: Number(seconds.toFixed(2)),
    events_per_s: Math.round(s.events / Math.max(seconds, 0.001)),
  };
}

async function run(opts: DemoCliOptions): Promise<number> {
  if (opts.dryRun && opts.ndjson) {
    console.error('demo: --dry-run and --ndjson cannot be combined');
    return 2;
  }
  const ingestKey = opts.ingestKey ?? process.env.DEMO_INGEST_KEY;
  if (!opts.dryRun && !opts.ndjson && !ingestKey) {
    console.error('demo: --ingest-key (or DEMO_INGEST_KEY) is required to push; see `npm run store -- create`');
    return 2;
  }
  const start = opts.start ?? new Date(Math.floor(Date.now() / DAY_MS) * DAY_MS - opts.days * DAY_MS);
  const started = performance.now();
  let plan: DemoPlan;
  try {
    plan = planDemo({
      events: opts.events,
      seed: opts.seed,
      start,
      days: opts.days,
      storeHost: opts.storeHost,
      smsCloser: opts.smsCloser,
    });
  } catch (err) {
    console.error(`demo: ${err instanceof Error ? err.message : String(err)}`);
    return 2;
  }

  if (opts.dryRun) {
    let n = 0;
    let first: unknown = null;
    for (const event of plan.events()) {
      if (n++ === 0) first = event;
    }
    const seconds = (performance.now() - started) / 1000;
    const summary = summaryOf(plan, 'dry-run', seconds, {
      sample: { event: first, order: plan.orders[0] ?? null, ad_spend: plan.adSpend[0] ?? null },
    });
    console.log(JSON.stringify(summary, null, 2));
    return 0;
  }

  if (opts.ndjson) {
    try {
      await writeNdjson(plan, opts.ndjson);
    } catch (err) {
      console.error(`demo: writing ${opts.ndjson} failed: ${err instanceof Error ? err.message : String(err)}`);
      return 1;
    }
    console.log(JSON.stringify(summaryOf(plan, 'ndjson', (performance.now() - started) / 1000, { file: opts.ndjson })));
    return 0;
  }

  const printer = progressPrinter(plan.summary.events, opts.progress && process.stderr.isTTY === true);
  try {
    const result = await pushDemo({
      apiUrl: opts.apiUrl,
      ingestKey: ingestKey!,
      stream: plan,
      batchSize: opts.batchSize,
      concurrency: opts.concurrency,
      onProgress: printer.update,
    });
    printer.done();
    const seconds = (performance.now() - started) / 1000;
    console.log(
      JSON.stringify(
        summaryOf(plan, 'push', seconds, {
          api_url: opts.apiUrl,
          requests: result.requests,
          duplicates: result.duplicates,
          warnings: result.warnings,
        }),
        null,
        2,
      ),
    );
    return 0;
  } catch (err) {
    printer.done();
    if (err instanceof DemoPushError) console.error(`demo: push failed: ${err.message}`);
    else console.error(`demo: push failed: ${err instanceof Error ? err.message : String(err)}`);
    return 1;
  }
}

export function buildDemoCli(): Command {
  const port = process.env.PORT ?? '8080';
  return new Command('demo')
    .description('Generate a realistic storefront stream for a store and push it through the ingestion routes')
    .addOption(
      new Option('--events <n>', 'number of storefront events').default(5000).argParser(positiveInteger('events')),
    )
    .addOption(new Option('--seed <s>', 'seed; the same seed gives the same stream').default(1).argParser(parseSeed))
    .addOption(
      new Option('--days <d>', 'days the stream covers')
        .default(DEFAULT_DEMO_DAYS)
        .argParser(positiveInteger('days', 3660)),
    )
    .addOption(
      new Option(
        '--start <YYYY-MM-DD>',
        'first day (UTC); default: today minus --days, so the data is recent',
      ).argParser(parseStart),
    )
    .addOption(
      new Option('--api-url <url>', 'base URL of the query API')
        .default(`http://127.0.0.1:${port}`)
        .argParser(parseUrl),
    )
    .addOption(new Option('--ingest-key <key>', 'ingest key of the store (or env DEMO_INGEST_KEY)'))
    .addOption(new Option('--store-host <host>', 'storefront host used in page URLs').default(DEFAULT_STORE_HOST))
    .addOption(
      new Option('--sms-closer', 'add an SMS channel of return visits that buy six times as often').default(false),
    )
    .addOption(
      new Option('--dry-run', 'generate the stream and print counts and a sample; push nothing').default(false),
    )
    .addOption(new Option('--ndjson <file>', 'write the events as NDJSON to <file> instead of pushing'))
    .addOption(
      new Option('--batch-size <n>', 'events per request').default(500).argParser(positiveInteger('batch-size', 500)),
    )
    .addOption(
      new Option('--concurrency <n>', 'requests in flight').default(4).argParser(positiveInteger('concurrency', 64)),
    )
    .addOption(new Option('--no-progress', 'no progress line on stderr'))
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride()
    .action(async (opts: DemoCliOptions) => {
      process.exitCode = await run(opts);
    });
}

if (require.main === module) {
  buildDemoCli()
    .parseAsync()
    .catch((err: unknown) => {
      if (err instanceof CommanderError) {
        // Commander printed the message (or the help) already.
        process.exit(err.exitCode === 0 ? 0 : 2);
      }
      console.error('demo: failed:', err instanceof Error ? err.message : err);
      process.exit(1);
    });
}
