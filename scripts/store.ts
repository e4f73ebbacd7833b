/**
 * Store admin CLI (docs/product.md, Credentials and tenancy): create stores and manage their credentials.
 *   npm run store -- create --name <n> --timezone <IANA> --currency <ISO> [--lookback-days 30] [--half-life-days 7]
 *   npm run store -- set --store <id> [--lookback-days <days>] [--half-life-days <days>]
 *   npm run store -- list
 *   npm run store -- rotate <kind> --store <id>
 *   npm run store -- revoke <kind> --store <id>
 *   npm run store -- rates set|list --store <id> ...
 *   npm run store -- webhook add|list|enable|disable|remove|rotate-secret|dead-letters|redrive --store <id> ...
 *   npm run store -- connection add shopify|woocommerce|meta|google|tiktok|list|remove --store <id> ...
 *       (scripts/connection-cli.ts, scripts/ad-connection-cli.ts)
 *   npm run store -- erase|export|delete|retention|privacy ... (scripts/privacy-cli.ts)
 * Secrets are printed once and stored only as SHA-256 digests.
 */
import { Command, InvalidArgumentError, Option } from 'commander';
import {
  DEFAULT_HALF_LIFE_DAYS,
  LOOKBACK_DAYS,
  MAX_HALF_LIFE_DAYS,
  MIN_HALF_LIFE_DAYS,
} from '../contracts/src/attribution';
import { CREDENTIAL_KINDS, type CredentialKind } from '../storage/credentials';
import { createDb, type Db } from '../storage/db';
import {
  createStore,
  getStore,
  listStores,
  revokeCredential,
  rotateCredential,
  updateStoreSettings,
} from '../storage/store-registry';
import { requireConnection } from './connection-env';
import { registerWebhookCommands } from './webhook-cli';
import { registerConnectionCommands } from './connection-cli';
import { registerPrivacyCommands } from './privacy-cli';

function parseTimezone(value: string): string {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: value });
  } catch {
    throw new InvalidArgumentError(`"${value}" is not an IANA time zone (e.g. Europe/Paris)`);
  }
  return value;
}

function parseCurrency(value: string): string {
  if (!/^[A-Za-z]{3}$/.test(value)) throw new InvalidArgumentError(`"${value}" is not an ISO 4217 code (e.g. USD)`);
  return value.toUpperCase();
}

function parseLookback(value: string): number {
  const n = Number(value);
  if (!(LOOKBACK_DAYS as readonly number[]).includes(n)) {
    throw new InvalidArgumentError(`must be one of ${LOOKBACK_DAYS.join(', ')}`);
  }
  return n;
}

function parseHalfLife(value: string): number {
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || n < MIN_HALF_LIFE_DAYS || n > MAX_HALF_LIFE_DAYS) {
    throw new InvalidArgumentError(`must be a number of days from ${MIN_HALF_LIFE_DAYS} to ${MAX_HALF_LIFE_DAYS}`);
  }
  return n;
}

function parseKind(value: string): CredentialKind {
  if (!(CREDENTIAL_KINDS as readonly string[]).includes(value)) {
    throw new InvalidArgumentError(`must be one of ${CREDENTIAL_KINDS.join(', ')}`);
  }
  return value as CredentialKind;
}

async function withDb<T>(fn: (db: Db) => Promise<T>): Promise<T> {
  const db = createDb({ connectionString: requireConnection('DATABASE_URL', 'store'), service: 'store-cli', max: 2 });
  try {
    return await fn(db);
  } finally {
    await db.close();
  }
}

async function requireStore(db: Db, storeId: string): Promise<void> {
  if (!(await getStore(db, storeId))) {
    console.error(`store: no store with id ${storeId}`);
    process.exit(3);
  }
}

const print = (value: unknown): void => console.log(JSON.stringify(value, null, 2));

export function buildStoreCli(): Command {
  const program = new Command('store').description('Manage stores and their credentials').showHelpAfterError();

  program
    .command('create')
    .description('Create a store; prints its id and credentials once')
    .requiredOption('--name <name>', 'display name')
    .requiredOption('--timezone <iana>', 'IANA time zone of the store, e.g. Europe/Paris', parseTimezone)
    .requiredOption('--currency <iso>', 'ISO 4217 currency of the store, e.g. EUR', parseCurrency)
    .addOption(new Option('--lookback-days <days>', 'attribution lookback window').default(30).argParser(parseLookback))
    .addOption(
      new Option('--half-life-days <days>', 'half-life of the time-decay model')
        .default(DEFAULT_HALF_LIFE_DAYS)
        .argParser(parseHalfLife),
    )
    .action(
      async (opts: {
        name: string;
        timezone: string;
        currency: string;
        lookbackDays: number;
        halfLifeDays: number;
      }) => {
        await withDb(async (db) => {
          const { store, credentials } = await createStore(db, {
            name: opts.name,
            timezone: opts.timezone,
            currency: opts.currency,
            lookbackDays: opts.lookbackDays,
            halfLifeDays: opts.halfLifeDays,
          });
          print({ store_id: store.store_id, ...credentials });
        });
      },
    );

  program
    .command('set')
    .description(
      'Change attribution settings; they apply to conversions recomputed afterwards (`npm run reconcile -- --store <id> --repair` recomputes the history)',
    )
    .requiredOption('--store <id>', 'store id')
    .addOption(new Option('--lookback-days <days>', 'attribution lookback window').argParser(parseLookback))
    .addOption(new Option('--half-life-days <days>', 'half-life of the time-decay model').argParser(parseHalfLife))
    .action(async (opts: { store: string; lookbackDays?: number; halfLifeDays?: number }) => {
      if (opts.lookbackDays === undefined && opts.halfLifeDays === undefined) {
        console.error('store: set: give --lookback-days and/or --half-life-days');
        process.exit(2);
      }
      await withDb(async (db) => {
        await requireStore(db, opts.store);
        const store = await updateStoreSettings(db, opts.store, {
          lookbackDays: opts.lookbackDays,
          halfLifeDays: opts.halfLifeDays,
        });
        print({
          store_id: opts.store,
          lookback_days: store?.lookback_days,
          half_life_days: store?.half_life_days,
        });
      });
    });

  program
    .command('list')
    .description('List stores with their settings and active credential kinds (never the secrets)')
    .action(async () => {
      await withDb(async (db) => print(await listStores(db)));
    });

  program
    .command('rotate')
    .description('Revoke the active credential of a kind and issue a new one; prints it once')
    .argument('<kind>', CREDENTIAL_KINDS.join(' | '), parseKind)
    .requiredOption('--store <id>', 'store id')
    .action(async (kind: CredentialKind, opts: { store: string }) => {
      await withDb(async (db) => {
        await requireStore(db, opts.store);
        print({ store_id: opts.store, [kind]: await rotateCredential(db, opts.store, kind) });
      });
    });

  program
    .command('revoke')
    .description('Revoke every active credential of a kind; it stops working at once')
    .argument('<kind>', CREDENTIAL_KINDS.join(' | '), parseKind)
    .requiredOption('--store <id>', 'store id')
    .action(async (kind: CredentialKind, opts: { store: string }) => {
      await withDb(async (db) => {
        await requireStore(db, opts.store);
        print({ store_id: opts.store, kind, revoked: await revokeCredential(db, opts.store, kind) });
      });
    });

  registerWebhookCommands(program);
  registerConnectionCommands(program);
  registerPrivacyCommands(program);

  const rates = program
    .command('rates')
    .description('Conversion rates to the store currency (docs/product.md, Conversions and goals)');
  rates
    .command('set')
    .description(
      'Set the rate of a currency: 1 unit of it = <rate> units of the store currency (applies to facts processed from now on)',
    )
    .requiredOption('--store <id>', 'store id')
    .requiredOption('--currency <iso>', 'ISO 4217 code, e.g. EUR', parseCurrency)
    .requiredOption('--rate <rate>', 'positive decimal', (v: string) => {
      const n = Number(v);
      if (!(n > 0) || !Number.isFinite(n)) throw new InvalidArgumentError('must be a positive number');
      return v;
    })
    .action(async (opts: { store: string; currency: string; rate: string }) => {
      await withDb(async (db) => {
        await requireStore(db, opts.store);
        await db.query(
          'rates.set',
          `insert into currency_rates (store_id, currency, rate) values ($1, $2, $3)
           on conflict (store_id, currency) do update set rate = excluded.rate, updated_at = now()`,
          [opts.store, opts.currency, opts.rate],
        );
        print({ store_id: opts.store, currency: opts.currency, rate: Number(opts.rate) });
      });
    });
  rates
    .command('list')
    .description('List the conversion rates of a store')
    .requiredOption('--store <id>', 'store id')
    .action(async (opts: { store: string }) => {
      await withDb(async (db) => {
        await requireStore(db, opts.store);
        const rows = await db.query<{ currency: string; rate: string; updated_at: Date }>(
          'rates.list',
          'select currency, rate, updated_at from currency_rates where store_id = $1 order by currency',
          [opts.store],
        );
        print(rows.map((r) => ({ currency: r.currency, rate: Number(r.rate), updated_at: r.updated_at })));
      });
    });

  return program;
}

if (require.main === module) {
  buildStoreCli()
    .parseAsync()
    .catch((err: unknown) => {
      console.error('store: failed:', err instanceof Error ? err.message : err);
      process.exit(1);
    });
}
