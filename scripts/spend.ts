/**
 * Ad spend from the ad platforms (docs/product.md):
 *   npm run spend -- pull --store <id> [--days N]
 * pulls every ad connection of the store now and prints a JSON summary (rows and days per connection).
 *   npm run spend -- import <file.csv> --store <id> [--account <id>] [--currency <ISO>]
 * imports a Meta Ads Manager or Google Ads report export (by day and ad) through the same replace-by-day rule:
 * the file's rows become the whole content of its days for that account. Both need
 * DATABASE_URL, NATS_URL, SECRETS_KEY (the key the connections were sealed with) and optionally the platform
 * configuration of docs/operations.md (META_GRAPH_URL, ...). Exit code 1 when a connection failed.
 */
import { readFile } from 'node:fs/promises';
import { connect } from '@nats-io/transport-node';
import { Command } from 'commander';
import type { AdSpendRow } from '../contracts/src/pushes';
import { DEFAULT_PARTITIONS } from '../contracts/src/subjects';
import { adPlatformClients } from '../pipeline/src/adapters/ad-platforms/index';
import { spendPullConfigFromEnv } from '../pipeline/src/adapters/ad-platforms/config';
import { jetStreamSpendPublisher } from '../pipeline/src/adapters/spend-publisher';
import { parseSpendCsv } from '../pipeline/src/domain/ad-spend-csv';
import { microsToDecimal } from '../pipeline/src/domain/decimal-micros';
import { pullAdSpend, replaceDays } from '../pipeline/src/jobs/ad-spend-pull';
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
        publish: jetStreamSpendPublisher(nc, { rowsPerSecond: config.publishRowsPerSecond }),
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

async function importCsv(file: string, opts: { store: string; account?: string; currency?: string }): Promise<void> {
  let parsed;
  try {
    parsed = parseSpendCsv(await readFile(file, 'utf8'));
  } catch (err) {
    fail(`${file}: ${(err as Error).message}`, 1);
  }
  const db = createDb({ connectionString: requireConnection('DATABASE_URL', 'spend'), service: 'spend-cli', max: 2 });
  const nc = await connect({ servers: requireConnection('NATS_URL', 'spend').split(','), name: 'spend-cli' });
  try {
    const store = await getStore(db, opts.store);
    if (!store) fail(`no store with id ${opts.store}`, 3);
    const updatedAt = new Date().toISOString();
    const byAccount = new Map<string, AdSpendRow[]>();
    for (const r of parsed.rows) {
      let account = r.accountId || opts.account?.replace(/-/g, '') || '';
      if (!account) fail(`${file}: the export has no account column; name the account with --account`, 1);
      if (parsed.platform === 'facebook' && /^\d+$/.test(account)) account = `act_${account}`;
      const row: AdSpendRow = {
        date: r.day,
        platform: parsed.platform,
        account_id: account,
        campaign_id: r.campaignId,
        campaign_name: r.campaignName,
        adset_id: r.adsetId,
        adset_name: r.adsetName,
        ad_id: r.adId,
        ad_name: r.adName,
        source: parsed.platform,
        medium: 'cpc',
        campaign: r.campaignName,
        spend: Number(microsToDecimal(r.spendMicros)),
        impressions: r.impressions,
        clicks: r.clicks,
        conversion_value: Number(microsToDecimal(r.valueMicros)),
        currency: r.currency || opts.currency || store.currency,
        updated_at: updatedAt,
      };
      byAccount.set(account, [...(byAccount.get(account) ?? []), row]);
    }
    const publish = jetStreamSpendPublisher(nc, {
      rowsPerSecond: spendPullConfigFromEnv(process.env).publishRowsPerSecond,
    });
    const partitions = Number(process.env.EVENT_PARTITIONS ?? DEFAULT_PARTITIONS);
    const accounts = [];
    for (const [account, rows] of byAccount) {
      const days = rows.map((r) => r.date).sort();
      const from = days[0]!;
      const to = days[days.length - 1]!;
      const done = await replaceDays({ db, publish, partitions }, opts.store, parsed.platform, account, rows, from, to);
      accounts.push({ account_id: account, from, to, ...done });
    }
    console.log(JSON.stringify({ store_id: opts.store, platform: parsed.platform, accounts }));
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
  program
    .command('import <file>')
    .description('Import a Meta Ads Manager or Google Ads report export (CSV, by day and ad); replaces its days')
    .requiredOption('--store <id>', 'store id')
    .option('--account <id>', 'the ad account, when the export has no account column')
    .option('--currency <ISO>', 'the account currency, when the export does not say (default: the store currency)')
    .action((file: string, opts: { store: string; account?: string; currency?: string }) => importCsv(file, opts));
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
