/**
 * Applies the forward-only SQL migrations in infra/migrations to DATABASE_URL.
 * Usage: npm run migrate   (also run by `make run` and by the integration test setup)
 */
import { Command } from 'commander';
import { migrate } from '../infra/migrate';
import { requireConnection } from './connection-env';

const program = new Command('migrate')
  .description('Apply pending SQL migrations (forward only) to DATABASE_URL')
  .option('--database-url <url>', 'PostgreSQL URL (default: $DATABASE_URL)')
  .action(async (opts: { databaseUrl?: string }) => {
    const url = opts.databaseUrl ?? requireConnection('DATABASE_URL', 'migrate');
    const applied = await migrate(url);
    console.error(applied.length ? `migrate: applied ${applied.join(', ')}` : 'migrate: up to date');
  });

program.parseAsync().catch((err: unknown) => {
  console.error('migrate: failed:', err instanceof Error ? err.message : err);
  process.exit(1);
});
