/**
 * npm run reconcile -- --store <id> [--from <date>] [--to <date>] [--repair]
 * Recomputes the store's views from the stored facts and prints the drift row by row (JSON lines).
 * Exit codes: 0 no drift (or repaired), 1 drift found, 2 bad arguments, 3 failure.
 */
import { Command, InvalidArgumentError } from 'commander';
import { createDb } from '../storage/db';
import { reconcileStore } from '../pipeline/src/operations/reconcile';
import { requireConnection } from './connection-env';

function parseDay(value: string): string {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value) || Number.isNaN(Date.parse(value)))
    throw new InvalidArgumentError('must be a date YYYY-MM-DD');
  return value;
}

const program = new Command('reconcile')
  .description("Recompute a store's views from its facts, print the drift row by row, optionally repair it")
  .requiredOption('--store <id>', 'store id')
  .option('--from <date>', 'first day of the rollups to compare (store time zone, inclusive)', parseDay)
  .option('--to <date>', 'day after the last one to compare (exclusive)', parseDay)
  .option('--repair', 'rebuild the store views from the facts (takes the view tables write lock briefly)')
  .option('--max-rows <n>', 'print at most this many drift rows', '1000')
  .showHelpAfterError()
  .action(async (opts: { store: string; from?: string; to?: string; repair?: boolean; maxRows: string }) => {
    const db = createDb({
      connectionString: requireConnection('DATABASE_URL', 'reconcile'),
      service: 'reconcile',
      max: 2,
    });
    try {
      const started = Date.now();
      const result = await reconcileStore(db, opts.store, {
        from: opts.from,
        to: opts.to,
        maxRows: Number(opts.maxRows),
      });
      for (const row of result.drift) console.log(JSON.stringify(row));
      const summary = {
        store: opts.store,
        persons: result.persons,
        conversions: result.conversions,
        drift: result.driftCount,
        seconds: (Date.now() - started) / 1000,
      };
      if (result.driftCount > 0 && opts.repair) {
        await reconcileStore(db, opts.store, { repair: true });
        const after = await reconcileStore(db, opts.store, { from: opts.from, to: opts.to, maxRows: 0 });
        console.error(JSON.stringify({ ...summary, repaired: true, drift_after_repair: after.driftCount }));
        process.exitCode = after.driftCount === 0 ? 0 : 1;
        return;
      }
      console.error(JSON.stringify(summary));
      process.exitCode = result.driftCount === 0 ? 0 : 1;
    } finally {
      await db.close();
    }
  });

program.parseAsync().catch((err: unknown) => {
  console.error('reconcile: failed:', err instanceof Error ? err.message : err);
  process.exit(3);
});
