/**
 * Benchmarks. Each prints its figures as JSON on stdout.
 *   npm run bench -- ingest     [--events 100000] [--batch 500] [--concurrency 8] [--via events|segment] [--workers 1]
 *   npm run bench -- pipeline   [--events 100000] [--rate 1000] [--live-seconds 20] [--workers 1] [--beside-events n]
 *                               [--daemon-cpu f] [--raw-payloads kept|none]
 *   npm run bench -- ad-conversions [--purchases 10000] [--limit-seconds 60]
 *   npm run bench -- api        [--events 1000000] [--seconds 20] [--concurrency 4] [--ingest-rate 1000]
 *   npm run bench -- history    [--events 100000] [--persons 5] [--each 5000] [--carts-every n] [--landings n]
 *   npm run bench -- analytics-cost [--events 100000] [--rounds 1]
 *   npm run bench -- fairness   [--rate 100] [--seconds 20] [--stores 10] [--warmup-seconds 10] [--steady-only]
 *   npm run bench -- startup    [--rounds 3]
 *   npm run bench -- hooks      [--webhooks 2000] [--shops 5] [--concurrency 20]
 *   npm run bench -- dashboard  [--events 2500] [--loads 10]
 *   npm run bench -- webhooks   [--deliveries 200] [--retries 20]
 *   npm run bench -- stop       [--events 50000] [--rounds 3]
 *   npm run bench -- spend      [--ads 500] [--days 90] [--rate 200] [--seconds 15]
 *   npm run bench -- fit        [--events 100000]
 *   npm run bench -- erase      [--events 1000000] [--persons 10] [--rate 500] [--seconds 20]
 *   npm run bench -- import     [--events 38800] [--days 70] [--batch 250] [--concurrency 4] [--workers 1]
 *   npm run bench -- import-ratio [--rounds 4]
 *   npm run bench -- repair     [--events 100000] [--runs 3] [--rebuild]
 *   npm run bench -- copy-text  [--rounds 25]
 */
import { Command, Option } from 'commander';
import { nonNegativeInteger, positiveFraction, positiveInteger } from '../cli-numbers';
import { benchAdConversions, type AdConversionsBenchOptions } from './ad-conversions';
import { benchCopyText, type CopyTextBenchOptions } from './copy-text';
import { benchFairness, type FairnessBenchOptions } from './fairness';
import { benchIngest, type IngestBenchOptions } from './ingest';
import { benchPipeline, type PipelineBenchOptions } from './pipeline';
import { type ApiBenchOptions, benchApi } from './api';
import { benchHistory, type HistoryBenchOptions } from './history';
import { type AnalyticsCostOptions, benchAnalyticsCost } from './analytics-cost';
import { benchStartup, type StartupBenchOptions } from './startup';
import { benchHooks, type HooksBenchOptions } from './hooks';
import { benchDashboard, type DashboardBenchOptions } from './dashboard';
import { benchWebhooks, type WebhooksBenchOptions } from './webhooks';
import { benchStop, type StopBenchOptions } from './stop';
import { benchSpend, type SpendBenchOptions } from './spend';
import { benchFit, type FitBenchOptions } from './fit';
import { benchErase, type EraseBenchOptions } from './erase';
import { benchImport, type ImportBenchOptions } from './import';
import { benchImportRatio } from './import-ratio';
import { benchRepair, type RepairBenchOptions } from './repair';

/** `--workers`, for the benches that start the pipeline. */
const WORKERS_OPTION = [
  '--workers <n>',
  'pipeline workers, each owning an equal share of the partitions',
  positiveInteger('workers'),
  1,
] as const;

/** The two benches' defaults, which `import-ratio` runs as they are. */
const INGEST_DEFAULTS = { events: 100_000, batch: 500, concurrency: 8, workers: 1, via: 'events' } as const;
const IMPORT_DEFAULTS = { events: 38_800, days: 70, batch: 250, concurrency: 4, workers: 1 } as const;

const program = new Command('bench').description(
  'Performance benchmarks; each starts its own services unless NATS_URL and DATABASE_URL are set',
);

program
  .command('ingest')
  .description('HTTP ingestion to committed raw rows: events/s end to end')
  .option('--events <n>', 'events to push', positiveInteger('events'), INGEST_DEFAULTS.events)
  .option('--batch <n>', 'events per request', positiveInteger('batch'), INGEST_DEFAULTS.batch)
  .option('--concurrency <n>', 'requests in flight', positiveInteger('concurrency'), INGEST_DEFAULTS.concurrency)
  .option(...WORKERS_OPTION)
  .addOption(
    new Option('--via <route>', 'our own events route, or Segment batches on /v1/batch')
      .choices(['events', 'segment'])
      .default(INGEST_DEFAULTS.via),
  )
  .action(async (o: IngestBenchOptions) => {
    await benchIngest(o);
  });

program
  .command('pipeline')
  .description(
    'Demo stream through the whole pipeline: events/s from stream to views, and p95 visibility at a steady rate',
  )
  .option('--events <n>', 'demo events to process', positiveInteger('events'), 100_000)
  .option('--rate <n>', 'events/s of the steady-rate visibility phase', positiveInteger('rate'), 1_000)
  .option('--live-seconds <n>', 'length of the visibility phase', positiveInteger('live-seconds'), 20)
  .option(...WORKERS_OPTION)
  .option(
    '--beside-events <n>',
    'demo events of another store loaded first, as in a deployment of several stores',
    positiveInteger('beside-events'),
  )
  .option(
    '--daemon-cpu <fraction>',
    'limit each daemon to this fraction of one core (a slower machine; needs root and cgroups)',
    positiveFraction('daemon-cpu'),
  )
  .addOption(
    new Option('--raw-payloads <kept|none>', "the measured store's raw payloads: kept, or none stored")
      .choices(['kept', 'none'])
      .default('kept'),
  )
  .action((o: PipelineBenchOptions) => benchPipeline(o));

program
  .command('fairness')
  .description("Ten stores, one bursting at 20x then flooding: the other stores' visibility p95 in each phase")
  .option('--rate <n>', 'events/s of each store (the bursting one: 20 times that)', positiveInteger('rate'), 100)
  .option('--seconds <n>', 'length of each phase', positiveInteger('seconds'), 20)
  .option('--stores <n>', 'stores, the first of them bursting', positiveInteger('stores'), 10)
  .option(
    '--warmup-seconds <n>',
    'unmeasured steady phase first, reported apart (0: none)',
    nonNegativeInteger('warmup-seconds'),
    10,
  )
  .option('--steady-only', 'run the steady phase only (to profile it)', false)
  .action((o: FairnessBenchOptions) => benchFairness(o));

program
  .command('ad-conversions')
  .description('Purchases to three fake ad platforms through the webhook worker, killed once with SIGKILL: none lost')
  .option('--purchases <n>', 'purchases to deliver to each platform', positiveInteger('purchases'), 10_000)
  .option(
    '--limit-seconds <n>',
    'seconds from the first push by which every purchase must have reached every platform',
    positiveInteger('limit-seconds'),
    60,
  )
  .action((o: AdConversionsBenchOptions) => benchAdConversions(o));

program
  .command('api')
  .description(
    'get-list (3 dimensions, 90-day range) latency and requests/s over a demo store, alone and while ingesting',
  )
  .option('--events <n>', 'demo events in the store', positiveInteger('events'), 1_000_000)
  .option('--seconds <n>', 'length of each measuring phase', positiveInteger('seconds'), 20)
  .option('--concurrency <n>', 'requests in flight in the throughput phases', positiveInteger('concurrency'), 4)
  .option('--ingest-rate <n>', 'events/s pushed during the second phase', positiveInteger('ingest-rate'), 1_000)
  .action((o: ApiBenchOptions) => benchApi(o));

program
  .command('history')
  .description('Throughput of the demo stream alone, then with a few persons of long history woven in')
  .option('--events <n>', 'demo events', positiveInteger('events'), 100_000)
  .option('--persons <n>', 'persons of long history', positiveInteger('persons'), 5)
  .option('--each <n>', 'events of each', positiveInteger('each'), 5_000)
  .option(
    '--carts-every <n>',
    'make every n-th event of such a person an add-to-cart (default: page views only)',
    positiveInteger('carts-every'),
  )
  .option(
    '--landings <n>',
    "land such a person's sessions on n different links in turn (default: all on the same page)",
    positiveInteger('landings'),
  )
  .action((o: HistoryBenchOptions) => benchHistory(o));

program
  .command('analytics-cost')
  .description('Throughput of the demo stream with and without the analytics views, with two lanes and with one')
  .option('--events <n>', 'demo events', positiveInteger('events'), 100_000)
  .option('--rounds <n>', 'runs of each side per lane count', positiveInteger('rounds'), 1)
  .action((o: AnalyticsCostOptions) => benchAnalyticsCost(o));

program
  .command('startup')
  .description('Start-up time and resident memory of each daemon, from TypeScript through tsx and from the build')
  .option('--rounds <n>', 'starts of each daemon and variant', positiveInteger('rounds'), 3)
  .action((o: StartupBenchOptions) => benchStartup(o));

program
  .command('hooks')
  .description('Signed Shopify order webhooks from several shops: answer latency (p50/p95/p99) and webhooks/s')
  .option(
    '--webhooks <n>',
    'deliveries to send (an orders/create and an orders/updated per order)',
    positiveInteger('webhooks'),
    2_000,
  )
  .option('--shops <n>', 'shops, each a store with its own connection', positiveInteger('shops'), 5)
  .option('--concurrency <n>', 'deliveries in flight', positiveInteger('concurrency'), 20)
  .action((o: HooksBenchOptions) => benchHooks(o));

program
  .command('dashboard')
  .description("The dashboard's overview in Chromium: time to its figures and first contentful paint, per reload")
  .option('--events <n>', 'demo events in the store', positiveInteger('events'), 2_500)
  .option('--loads <n>', 'reloads measured', positiveInteger('loads'), 10)
  .action((o: DashboardBenchOptions) => benchDashboard(o));

program
  .command('webhooks')
  .description('The webhook worker: delivery time, retry gap, deliveries beside a slow receiver, drain on SIGTERM')
  .option('--deliveries <n>', 'deliveries of the paced phase', positiveInteger('deliveries'), 200)
  .option('--retries <n>', 'deliveries answered 500 once', positiveInteger('retries'), 20)
  .action((o: WebhooksBenchOptions) => benchWebhooks(o));

program
  .command('stop')
  .description('The pipeline daemon stopped by SIGTERM in the middle of a backlog: time from the signal to its exit')
  .option('--events <n>', 'page views of the backlog', positiveInteger('events'), 50_000)
  .option('--rounds <n>', 'stops measured', positiveInteger('rounds'), 3)
  .action((o: StopBenchOptions) => benchStop(o));

program
  .command('spend')
  .description('A 90-day spend backfill of one ad account from the fake ad platforms, to rows stored')
  .option('--ads <n>', 'ads in the account', positiveInteger('ads'), 500)
  .option('--days <n>', 'days of the backfill', positiveInteger('days'), 90)
  .option('--rate <n>', 'page views per second pushed beside the backfill', positiveInteger('rate'), 200)
  .option('--seconds <n>', 'length of each page-view phase', positiveInteger('seconds'), 15)
  .action((o: SpendBenchOptions) => benchSpend(o));

program
  .command('fit')
  .description("The data-driven model's fit of a demo store: seconds to fit, and to recompute the store under it")
  .option('--events <n>', 'demo events in the store', positiveInteger('events'), 100_000)
  .action((o: FitBenchOptions) => benchFit(o));

program
  .command('erase')
  .description('Persons of a demo store erased through the API while it ingests: seconds per erasure, visibility')
  .option('--events <n>', 'demo events in the store', positiveInteger('events'), 1_000_000)
  .option('--persons <n>', 'persons erased, one after the other', positiveInteger('persons'), 10)
  .option('--rate <n>', 'page views per second ingested meanwhile', positiveInteger('rate'), 500)
  .option('--seconds <n>', 'length of each ingestion phase', positiveInteger('seconds'), 20)
  .action((o: EraseBenchOptions) => benchErase(o));

program
  .command('import')
  .description("A store's history imported into a fresh installation through the API: events/s accepted and end to end")
  .option('--events <n>', 'demo events of the history', positiveInteger('events'), IMPORT_DEFAULTS.events)
  .option('--days <n>', 'days the history covers', positiveInteger('days'), IMPORT_DEFAULTS.days)
  .option('--batch <n>', 'events per request', positiveInteger('batch'), IMPORT_DEFAULTS.batch)
  .option('--concurrency <n>', 'requests in flight', positiveInteger('concurrency'), IMPORT_DEFAULTS.concurrency)
  .option(...WORKERS_OPTION)
  .action(async (o: ImportBenchOptions) => {
    await benchImport(o);
  });

program
  .command('import-ratio')
  .description(
    "The import against the ingest bench, both with their defaults, in alternated rounds: the import's share of ingest",
  )
  .option('--rounds <n>', 'rounds of one import and one ingest run', positiveInteger('rounds'), 4)
  .action((o: { rounds: number }) =>
    benchImportRatio({ rounds: o.rounds, import: { ...IMPORT_DEFAULTS }, ingest: { ...INGEST_DEFAULTS } }),
  );

program
  .command('repair')
  .description(
    "A store's views recomputed from its facts again and again (or, with --rebuild, rebuilt): seconds and CPU",
  )
  .option('--events <n>', 'demo events of the store', positiveInteger('events'), 100_000)
  .option('--runs <n>', 'repairs (or rebuilds) one after the other', positiveInteger('runs'), 3)
  .option('--rebuild', 'replay --rebuild the store instead of repairing it')
  .action((o: RepairBenchOptions) => benchRepair(o));

program
  .command('copy-text')
  .description("The daemon's CPU for a COPY's input: event facts and rollup rows made into lines and one buffer")
  .option('--rounds <n>', 'timings of each batch (the medians are printed)', positiveInteger('rounds'), 25)
  .action((o: CopyTextBenchOptions) => benchCopyText(o));

program.parseAsync().catch((err: unknown) => {
  console.error('bench failed:', err instanceof Error ? err.stack : err);
  process.exit(1);
});
