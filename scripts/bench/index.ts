/**
 * Benchmarks. Each prints its figures as JSON on stdout.
 *   npm run bench -- ingest   [--events 100000] [--batch 500] [--concurrency 8]
 */
import { Command } from 'commander';
import { benchIngest } from './ingest';

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

program.parseAsync().catch((err: unknown) => {
  console.error('bench failed:', err instanceof Error ? err.stack : err);
  process.exit(1);
});
