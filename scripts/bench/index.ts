/**
 * Benchmarks. Each prints its figures as JSON on stdout.
 *   npm run bench -- ingest     [--events 100000] [--batch 500] [--concurrency 8]
 *   npm run bench -- pipeline   [--events 100000] [--rate 1000] [--live-seconds 20] [--workers 1]
 *   npm run bench -- api        [--events 1000000] [--seconds 20] [--concurrency 4] [--ingest-rate 1000]
 *   npm run bench -- history    [--events 100000] [--persons 5] [--each 5000]
 *   npm run bench -- analytics-cost [--events 100000] [--rounds 1]
 */
import { Command } from 'commander';
import { benchIngest } from './ingest';
import { benchPipeline } from './pipeline';
import { benchApi } from './api';
import { benchHistory } from './history';
import { benchAnalyticsCost } from './analytics-cost';

const program = new Command('bench').description(
  'Performance benchmarks; each starts its own services unless NATS_URL and DATABASE_URL are set',
);

program
  .command('ingest')
  .description('HTTP ingestion to committed raw rows: events/s end to end')
  .option('--events <n>', 'events to push', '100000')
  .option('--batch <n>', 'events per request', '500')
  .option('--concurrency <n>', 'requests in flight', '8')
  .action(async (o: { events: string; batch: string; concurrency: string }) => {
    await benchIngest({ events: Number(o.events), batch: Number(o.batch), concurrency: Number(o.concurrency) });
  });

program
  .command('pipeline')
  .description(
    'Demo stream through the whole pipeline: events/s from stream to views, and p95 visibility at a steady rate',
  )
  .option('--events <n>', 'demo events to process', '100000')
  .option('--rate <n>', 'events/s of the steady-rate visibility phase', '1000')
  .option('--live-seconds <n>', 'length of the visibility phase', '20')
  .option('--workers <n>', 'pipeline workers, each owning an equal share of the partitions', '1')
  .action(async (o: { events: string; rate: string; liveSeconds: string; workers: string }) => {
    await benchPipeline({
      events: Number(o.events),
      rate: Number(o.rate),
      liveSeconds: Number(o.liveSeconds),
      workers: Number(o.workers),
    });
  });

program
  .command('api')
  .description(
    'get-list (3 dimensions, 90-day range) latency and requests/s over a demo store, alone and while ingesting',
  )
  .option('--events <n>', 'demo events in the store', '1000000')
  .option('--seconds <n>', 'length of each measuring phase', '20')
  .option('--concurrency <n>', 'requests in flight in the throughput phases', '4')
  .option('--ingest-rate <n>', 'events/s pushed during the second phase', '1000')
  .action(async (o: { events: string; seconds: string; concurrency: string; ingestRate: string }) => {
    await benchApi({
      events: Number(o.events),
      seconds: Number(o.seconds),
      concurrency: Number(o.concurrency),
      ingestRate: Number(o.ingestRate),
    });
  });

program
  .command('history')
  .description('Throughput of the demo stream alone, then with a few persons of long history woven in')
  .option('--events <n>', 'demo events', '100000')
  .option('--persons <n>', 'persons of long history', '5')
  .option('--each <n>', 'page views of each', '5000')
  .action(async (o: { events: string; persons: string; each: string }) => {
    await benchHistory({ events: Number(o.events), persons: Number(o.persons), each: Number(o.each) });
  });

program
  .command('analytics-cost')
  .description('Throughput of the demo stream with and without the analytics views, with two lanes and with one')
  .option('--events <n>', 'demo events', '100000')
  .option('--rounds <n>', 'runs of each side per lane count', '1')
  .action(async (o: { events: string; rounds: string }) => {
    await benchAnalyticsCost({ events: Number(o.events), rounds: Number(o.rounds) });
  });

program.parseAsync().catch((err: unknown) => {
  console.error('bench failed:', err instanceof Error ? err.stack : err);
  process.exit(1);
});
