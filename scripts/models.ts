/**
 * The data-driven model (docs/product.md, Attribution, "Data-driven"):
 *   npm run models -- fit --store <id>
 * fits the store's Markov chain per goal over the last 90 days now, stores the fits, recomputes the store's
 * credits under them when a weight changed (one transaction), and prints the fit as JSON. The pipeline does the
 * same nightly (JOB_DATA_DRIVEN_FIT_CRON). Needs DATABASE_URL.
 */
import { Command } from 'commander';
import { fitStore } from '../pipeline/src/jobs/data-driven-fit';
import { createDb } from '../storage/db';
import { getStore } from '../storage/store-registry';
import { positiveInteger } from './cli-numbers';
import { requireConnection } from './connection-env';

function fail(message: string, code: number): never {
  console.error(`models: ${message}`);
  process.exit(code);
}

const program = new Command('models').description('The data-driven attribution model');

program
  .command('fit')
  .description('Fit the data-driven model of a store now (prints the fit as JSON)')
  .requiredOption('--store <id>', 'store id')
  .option(
    '--min-conversions <n>',
    'fit only above this many conversions (default 100)',
    positiveInteger('min-conversions'),
  )
  .option('--min-paths <n>', 'fit only above this many paths (default 1000)', positiveInteger('min-paths'))
  .action(async (opts: { store: string; minConversions?: number; minPaths?: number }) => {
    const db = createDb({
      connectionString: requireConnection('DATABASE_URL', 'models'),
      service: 'models-cli',
      max: 2,
    });
    try {
      if (!(await getStore(db, opts.store))) fail(`no store with id ${opts.store}`, 3);
      const fit = await fitStore(db, opts.store, {
        now: Date.now(),
        minConversions: opts.minConversions,
        minPaths: opts.minPaths,
      });
      console.log(JSON.stringify(fit, null, 2));
    } finally {
      await db.close();
    }
  });

program.parseAsync().catch((err: unknown) => {
  console.error('models:', err instanceof Error ? err.message : err);
  process.exit(1);
});
