/**
 * Ad spend from the ad platforms (docs/product.md):
 *   npm run spend -- pull --store <id> [--days N]
 * pulls every ad connection of the store now and prints a JSON summary (rows and days per connection). Needs
 * DATABASE_URL, NATS_URL, SECRETS_KEY (the key the connections were sealed with) and optionally the platform
 * configuration of docs/operations.md (META_GRAPH_URL, ...). Exit code 1 when a connection failed.
 */
import { connect } from '@nats-io/transport-node';
import { Command } from 'commander';
import { DEFAULT_PARTITIONS } from '../contracts/src/subjects';
import { adPlatformClients } from '../pipeline/src/adapters/ad-platforms/index';
import { spendPullConfigFromEnv } from '../pipeline/src/adapters/ad-platforms/config';
import { jetStreamSpendPublisher } from '../pipeline/src/adapters/spend-publisher';
import { pullAdSpend } from '../pipeline/src/jobs/ad-spend-pull';
import { createDb } from '../storage/db';
import { getStore } from '../storage/store-registry';
import { createSecretBox, parseSecretsKey } from '../storage/secret-box';
import { positiveInteger } from './cli-numbers';
import { requireConnection } from './connection-env';

function fail(message: string, code: number): never {
  console.error(`spend: ${message}`);
  process.exit(code);
}

async function pull(opts: { store: string; days?: number }): Promise<void> {
  let config;
  try {
    config = spendPullConfigFromEnv(process.env);
  } catch (err) {
    fail((err as Error).message, 2);
  }
  const keyText = process.env.SECRETS_KEY ?? '';
  if (!keyText.trim()) fail("SECRETS_KEY is not set: the connections' tokens are sealed under it", 2);
  let box;
  try {
    box = createSecretBox(parseSecretsKey(keyText));
  } catch (err) {
    fail(`SECRETS_KEY ${(err as Error).message}`, 2);
  }
  const db = createDb({ connectionString: requireConnection('DATABASE_URL', 'spend'), service: 'spend-cli', max: 2 });
  const nc = await connect({ servers: requireConnection('NATS_URL', 'spend').split(','), name: 'spend-cli' });
  try {
    if (!(await getStore(db, opts.store))) fail(`no store with id ${opts.store}`, 3);
    const results = await pullAdSpend(
      {
        db,
        box,
        clients: adPlatformClients(config.platforms),
        publish: jetStreamSpendPublisher(nc),
        partitions: Number(process.env.EVENT_PARTITIONS ?? DEFAULT_PARTITIONS),
        now: Date.now,
      },
      { storeId: opts.store, days: opts.days, windowDays: config.windowDays, backfillDays: config.backfillDays },
    );
    console.log(JSON.stringify({ store_id: opts.store, connections: results }));
    if (results.some((r) => r.error)) process.exitCode = 1;
  } finally {
    await nc.drain();
    await db.close();
  }
}

export function buildSpendCli(): Command {
  const program = new Command('spend').description('Ad spend from the ad platforms').showHelpAfterError();
  program
    .command('pull')
    .description('Pull the spend of every ad connection of a store now; prints a JSON summary')
    .requiredOption('--store <id>', 'store id')
    .option(
      '--days <n>',
      'days to pull, ending today (default: 7, or 90 on a first pull)',
      positiveInteger('--days', 3660),
    )
    .action((opts: { store: string; days?: number }) => pull(opts));
  return program;
}

if (require.main === module) {
  buildSpendCli()
    .parseAsync()
    .catch((err: unknown) => {
      console.error('spend: failed:', err instanceof Error ? err.message : err);
      process.exit(1);
    });
}
