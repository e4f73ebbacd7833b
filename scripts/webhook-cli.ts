/**
 * Webhook destinations of a store and their dead letters (DESIGN D11), as `store webhook ...` subcommands:
 *   npm run store -- webhook add --store <id> --url <u> [--events "Checkout Started,Added to Cart"]
 *   npm run store -- webhook list --store <id>
 *   npm run store -- webhook disable|enable|remove|rotate-secret --store <id> --destination <wd_...>
 *   npm run store -- webhook dead-letters --store <id> [--destination <wd_...>] [--all]
 *   npm run store -- webhook redrive --store <id> [--destination <wd_...>] [--id <n>]
 * The signing secret is printed once, by `add` and `rotate-secret`. `redrive` needs NATS_URL as well.
 * Also runnable alone: `node --import tsx scripts/webhook-cli.ts webhook ...`.
 */
import { Command, InvalidArgumentError } from 'commander';
import { connect } from '@nats-io/transport-node';
import { jetstream } from '@nats-io/jetstream';
import { IDENTITY_EVENTS, type IdentityEventName } from '../contracts/src/webhooks';
import { createDb, type Db } from '../infra/runtime/db';
import { requireConnection } from './connection-env';
import { getStore } from '../infra/runtime/store-registry';
import {
  DestinationInputError,
  parseEventList,
  validateDestinationUrl,
} from '../pipeline/src/webhooks/destination-rules';
import {
  createDestination,
  getDestination,
  listDeadLetters,
  listDestinations,
  removeDestination,
  rotateDestinationSecret,
  setDestinationEnabled,
} from '../pipeline/src/webhooks/destination-repo';
import { redriveDeadLetters, type PublishDelivery, type RedriveReport } from '../pipeline/src/webhooks/redrive';

/** A failure with its exit code: 2 environment, 3 unknown store or destination. */
class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: number,
  ) {
    super(message);
    this.name = 'CliError';
  }
}

function argParser<T>(fn: (v: string) => T): (v: string) => T {
  return (v) => {
    try {
      return fn(v);
    } catch (err) {
      if (err instanceof DestinationInputError) throw new InvalidArgumentError(err.message);
      throw err;
    }
  };
}

function parsePositiveInt(value: string): number {
  if (!/^\d+$/.test(value) || Number(value) < 1) throw new InvalidArgumentError('must be a positive integer');
  return Number(value);
}

async function withDb<T>(fn: (db: Db) => Promise<T>): Promise<T> {
  const db = createDb({
    connectionString: requireConnection('DATABASE_URL', 'store webhook'),
    service: 'store-cli',
    max: 2,
  });
  try {
    return await fn(db);
  } finally {
    await db.close();
  }
}

async function requireStore(db: Db, storeId: string): Promise<void> {
  if (!(await getStore(db, storeId))) throw new CliError(`no store with id ${storeId}`, 3);
}

async function requireDestination(db: Db, storeId: string, destinationId: string): Promise<void> {
  await requireStore(db, storeId);
  if (!(await getDestination(db, storeId, destinationId))) {
    throw new CliError(`store ${storeId} has no webhook destination ${destinationId}`, 3);
  }
}

const print = (value: unknown): void => console.log(JSON.stringify(value, null, 2));

/** Runs an action; CliError ends the process with its code and message (and nothing on stdout). */
function action<A extends unknown[]>(fn: (...args: A) => Promise<void>): (...args: A) => Promise<void> {
  return async (...args) => {
    try {
      await fn(...args);
    } catch (err) {
      if (!(err instanceof CliError)) throw err;
      console.error(`store webhook: ${err.message}`);
      process.exit(err.exitCode);
    }
  };
}

/** Publishes redriven deliveries to JetStream (NATS_URL) and waits for each ack. */
export async function withPublisher<T>(
  fn: (publish: PublishDelivery) => Promise<T>,
  natsUrl: string = requireConnection('NATS_URL', 'store webhook'),
): Promise<T> {
  const nc = await connect({ servers: natsUrl.split(','), name: 'store-cli' });
  try {
    const js = jetstream(nc);
    return await fn(async (subject, delivery, msgId) => {
      await js.publish(subject, JSON.stringify(delivery), { msgID: msgId });
    });
  } finally {
    await nc.drain();
  }
}

/** `redrive` as a function (tests and scripts): publishes the matching dead letters and marks them redriven. */
export async function redrive(
  db: Db,
  filter: { storeId: string; destinationId?: string; id?: number },
  natsUrl?: string,
): Promise<RedriveReport> {
  return withPublisher((publish) => redriveDeadLetters(db, publish, filter), natsUrl);
}

interface StoreOpt {
  store: string;
}
interface DestinationOpts extends StoreOpt {
  destination: string;
}

export function registerWebhookCommands(program: Command): Command {
  const webhook = program
    .command('webhook')
    .description('Identity-event webhook destinations of a store, and their dead letters')
    .showHelpAfterError();

  webhook
    .command('add')
    .description('Add a destination; prints its id and signing secret (shown once)')
    .requiredOption('--store <id>', 'store id')
    .requiredOption('--url <url>', 'http(s) URL that receives the POSTs', argParser(validateDestinationUrl))
    .option(
      '--events <list>',
      `comma-separated identity events, exactly: ${IDENTITY_EVENTS.join(', ')} (default: all six)`,
      argParser(parseEventList),
    )
    .action(
      action(async (opts: StoreOpt & { url: string; events?: IdentityEventName[] }) => {
        await withDb(async (db) => {
          await requireStore(db, opts.store);
          const { destination, secret } = await createDestination(db, {
            storeId: opts.store,
            url: opts.url,
            events: opts.events ?? [...IDENTITY_EVENTS],
          });
          print({
            destination_id: destination.destination_id,
            url: destination.url,
            events: destination.events,
            secret,
          });
        });
      }),
    );

  webhook
    .command('list')
    .description('List the destinations of a store (never the secrets)')
    .requiredOption('--store <id>', 'store id')
    .action(
      action(async (opts: StoreOpt) => {
        await withDb(async (db) => {
          await requireStore(db, opts.store);
          const rows = await listDestinations(db, opts.store);
          print(
            rows.map((d) => ({
              destination_id: d.destination_id,
              url: d.url,
              events: d.events,
              enabled: d.enabled,
              disabled_reason: d.disabled_reason,
              created_at: d.created_at,
              updated_at: d.updated_at,
            })),
          );
        });
      }),
    );

  const destinationCommand = (name: string, description: string) =>
    webhook
      .command(name)
      .description(description)
      .requiredOption('--store <id>', 'store id')
      .requiredOption('--destination <id>', 'destination id (wd_...)');

  destinationCommand('disable', 'Stop sending to a destination; deliveries queued for it go to the dead-letter list')
    .option('--reason <text>', 'why (shown by list)', 'disabled by an operator')
    .action(
      action(async (opts: DestinationOpts & { reason: string }) => {
        await withDb(async (db) => {
          await requireDestination(db, opts.store, opts.destination);
          const d = await setDestinationEnabled(db, opts.store, opts.destination, false, opts.reason);
          print({ destination_id: opts.destination, enabled: d?.enabled, disabled_reason: d?.disabled_reason });
        });
      }),
    );

  destinationCommand('enable', 'Send to a destination again (clears the reason it was disabled)').action(
    action(async (opts: DestinationOpts) => {
      await withDb(async (db) => {
        await requireDestination(db, opts.store, opts.destination);
        const d = await setDestinationEnabled(db, opts.store, opts.destination, true, null);
        print({ destination_id: opts.destination, enabled: d?.enabled, disabled_reason: d?.disabled_reason });
      });
    }),
  );

  destinationCommand(
    'remove',
    'Delete a destination; deliveries still queued for it go to the dead-letter list',
  ).action(
    action(async (opts: DestinationOpts) => {
      await withDb(async (db) => {
        await requireDestination(db, opts.store, opts.destination);
        print({ destination_id: opts.destination, removed: await removeDestination(db, opts.store, opts.destination) });
      });
    }),
  );

  destinationCommand(
    'rotate-secret',
    'Replace the signing secret; prints the new one once (the old one stops signing at once)',
  ).action(
    action(async (opts: DestinationOpts) => {
      await withDb(async (db) => {
        await requireDestination(db, opts.store, opts.destination);
        const secret = await rotateDestinationSecret(db, opts.store, opts.destination);
        print({ destination_id: opts.destination, secret });
      });
    }),
  );

  webhook
    .command('dead-letters')
    .description('Deliveries that will not be retried, one JSON object per line (oldest first)')
    .requiredOption('--store <id>', 'store id')
    .option('--destination <id>', 'only this destination')
    .option('--all', 'include dead letters already redriven', false)
    .action(
      action(async (opts: StoreOpt & { destination?: string; all: boolean }) => {
        await withDb(async (db) => {
          await requireStore(db, opts.store);
          const rows = await listDeadLetters(db, {
            storeId: opts.store,
            destinationId: opts.destination,
            includeRedriven: opts.all,
          });
          for (const r of rows) {
            const { redriven_at, ...rest } = r;
            console.log(JSON.stringify(opts.all ? { ...rest, redriven_at } : rest));
          }
        });
      }),
    );

  webhook
    .command('redrive')
    .description(
      'Send dead letters again (same webhook-id, fresh retry schedule) and mark them redriven; ' +
        'those of disabled or removed destinations are skipped. Needs NATS_URL.',
    )
    .requiredOption('--store <id>', 'store id')
    .option('--destination <id>', 'only this destination')
    .option('--id <n>', 'only this dead letter', parsePositiveInt)
    .action(
      action(async (opts: StoreOpt & { destination?: string; id?: number }) => {
        await withDb(async (db) => {
          await requireStore(db, opts.store);
          print(await redrive(db, { storeId: opts.store, destinationId: opts.destination, id: opts.id }));
        });
      }),
    );

  return webhook;
}

if (require.main === module) {
  const program = new Command('store').description('Webhook destinations (also under npm run store)');
  registerWebhookCommands(program);
  program.parseAsync().catch((err: unknown) => {
    console.error('store webhook: failed:', err instanceof Error ? err.message : err);
    process.exit(1);
  });
}
