/**
 * Webhook destinations of a store and their dead letters, as `store webhook ...` subcommands:
 *   npm run store -- webhook add --store <id> --url <u> [--events "Checkout Started,Added to Cart"]
 *   npm run store -- webhook add --store <id> --kind klaviyo --api-key <pk_...|-> [--url <u>] [--events ...]
 *   npm run store -- webhook add --store <id> --kind meta_capi --pixel <id> --token <t|-> [--test-event-code <c>]
 *   npm run store -- webhook add --store <id> --kind google_ads --customer <id> --conversion-action <resource name>
 *   npm run store -- webhook add --store <id> --kind tiktok_events --pixel <code> --token <t|-> [--test-event-code <c>]
 *   npm run store -- webhook list --store <id>
 *   npm run store -- webhook disable|enable|remove|rotate-secret --store <id> --destination <wd_...>
 *   npm run store -- webhook rotate-key --store <id> --destination <wd_...> --api-key <pk_...|->
 *   npm run store -- webhook dead-letters --store <id> [--destination <wd_...>] [--all]
 *   npm run store -- webhook redrive --store <id> [--destination <wd_...>] [--id <n>]
 * The signing secret of a `webhook` destination is printed once, by `add` and `rotate-secret`. The Klaviyo
 * private key of a `klaviyo` destination is never printed; it is stored encrypted under SECRETS_KEY, which `add
 * --kind klaviyo` and `rotate-key` need (`--api-key -` reads it from stdin, out of the shell history). `redrive`
 * needs NATS_URL as well. The ad platforms' kinds send purchases, not identity events; their tokens are stored
 * encrypted like Klaviyo's keys (a google_ads destination uses the store's Google Ads connection instead). Also runnable alone: `node --import tsx scripts/webhook-cli.ts webhook ...`.
 */
import { Command, InvalidArgumentError } from 'commander';
import { connect } from '@nats-io/transport-node';
import { jetstream } from '@nats-io/jetstream';
import { IDENTITY_EVENTS, type IdentityEventName } from '../contracts/src/identity-events';
import { createDb, type Db } from '../storage/db';
import { requireConnection } from './connection-env';
import { positiveInteger } from './cli-numbers';
import { getStore } from '../storage/store-registry';
import { listAdConnections } from '../storage/ad-connections';
import {
  DESTINATION_KINDS,
  DestinationInputError,
  parseDestinationKind,
  parseEventList,
  validateDestinationUrl,
  type DestinationKind,
} from '../webhook-worker/src/destination-rules';
import {
  createAdPlatformDestination,
  createDestination,
  createKlaviyoDestination,
  getDestination,
  listDeadLetters,
  listDestinations,
  removeDestination,
  rotateDestinationSecret,
  rotateKlaviyoApiKey,
  setDestinationEnabled,
  type WebhookDestination,
} from '../webhook-worker/src/destination-repo';
import { KLAVIYO_EVENTS_URL, validateKlaviyoApiKey } from '../webhook-worker/src/klaviyo';
import {
  validateAccessToken,
  validateConversionAction,
  validateGoogleCustomerId,
  validateMetaPixelId,
  validateTestEventCode,
  validateTikTokPixelCode,
  type NewAdDestination,
} from '../webhook-worker/src/conversions/destination-settings';
import { redriveDeadLetters, type PublishDelivery, type RedriveReport } from '../webhook-worker/src/redrive';
import { createSecretBox, parseSecretsKey, type SecretBox } from '../storage/secret-box';

/** A failure with its exit code: 1 usage, 2 environment, 3 unknown store or destination. */
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

async function requireDestination(db: Db, storeId: string, destinationId: string): Promise<WebhookDestination> {
  await requireStore(db, storeId);
  const destination = await getDestination(db, storeId, destinationId);
  if (!destination) throw new CliError(`store ${storeId} has no webhook destination ${destinationId}`, 3);
  return destination;
}

/** The key that encrypts Klaviyo private keys at rest; the webhook worker must have the same one. */
function requireSecretBox(): SecretBox {
  const text = process.env.SECRETS_KEY ?? '';
  if (text.trim() === '') {
    throw new CliError(
      'SECRETS_KEY is not set: it encrypts Klaviyo API keys at rest and the webhook worker needs the same value ' +
        '(32 random bytes, base64: openssl rand -base64 32; see docs/operations.md)',
      2,
    );
  }
  try {
    return createSecretBox(parseSecretsKey(text));
  } catch (err) {
    throw new CliError(`SECRETS_KEY ${(err as Error).message}`, 2);
  }
}

/** The Klaviyo private key of `--api-key`: the value, or stdin for `-` (keeps it out of shell history and ps). */
async function readApiKey(value: string): Promise<string> {
  let text = value;
  if (value === '-') {
    const chunks: Buffer[] = [];
    for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
    text = Buffer.concat(chunks).toString('utf8');
  }
  try {
    return validateKlaviyoApiKey(text);
  } catch (err) {
    if (err instanceof DestinationInputError) throw new CliError(`--api-key: ${err.message}`, 1);
    throw err;
  }
}

interface AdPlatformOpts {
  pixel?: string;
  token?: string;
  testEventCode?: string;
  customer?: string;
  conversionAction?: string;
}

/** Runs a validator of the destination settings; its message already names the option. */
function checked<T>(fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    if (err instanceof DestinationInputError) throw new CliError(err.message, 1);
    throw err;
  }
}

function required(value: string | undefined, option: string, kind: string): string {
  if (value === undefined) throw new CliError(`${option} is required for a ${kind} destination`, 1);
  return value;
}

/** The settings and token of an ad platform's destination from the options (`--token -` reads stdin). */
async function adDestinationOf(
  kind: 'meta_capi' | 'google_ads' | 'tiktok_events',
  o: AdPlatformOpts,
): Promise<NewAdDestination> {
  const testEventCode = o.testEventCode === undefined ? null : checked(() => validateTestEventCode(o.testEventCode!));
  const token = async (): Promise<string> => {
    const value = required(o.token, '--token', kind);
    let text = value;
    if (value === '-') {
      const chunks: Buffer[] = [];
      for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
      text = Buffer.concat(chunks).toString('utf8');
    }
    return checked(() => validateAccessToken(text));
  };
  switch (kind) {
    case 'meta_capi': {
      const pixelId = checked(() => validateMetaPixelId(required(o.pixel, '--pixel', kind)));
      return { settings: { kind, pixelId, testEventCode }, accessToken: await token() };
    }
    case 'tiktok_events': {
      const pixelCode = checked(() => validateTikTokPixelCode(required(o.pixel, '--pixel', kind)));
      return { settings: { kind, pixelCode, testEventCode }, accessToken: await token() };
    }
    case 'google_ads': {
      if (o.token !== undefined) {
        throw new CliError("--token is not for google_ads: it uses the store's Google Ads connection", 1);
      }
      if (testEventCode !== null) throw new CliError('--test-event-code is for meta_capi and tiktok_events only', 1);
      const customerId = checked(() => validateGoogleCustomerId(required(o.customer, '--customer', kind)));
      const conversionAction = checked(() =>
        validateConversionAction(required(o.conversionAction, '--conversion-action', kind), customerId),
      );
      return { settings: { kind, customerId, conversionAction }, accessToken: null };
    }
  }
}

/** A google_ads destination uploads with the store's Google Ads connection: refused until there is one. */
async function requireGoogleConnection(db: Db, storeId: string): Promise<void> {
  if ((await listAdConnections(db, storeId)).some((c) => c.kind === 'google')) return;
  throw new CliError(
    "a google_ads destination uses the store's Google Ads connection, and it has none: add it first with " +
      '`npm run store -- connection add google --store <id> ...`',
    1,
  );
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
    .description(
      'Add a destination. kind webhook (default): POSTs signed with Standard Webhooks to --url; prints the ' +
        'signing secret once. kind klaviyo: Klaviyo Create Event API with --api-key (stored encrypted under ' +
        'SECRETS_KEY, never printed)',
    )
    .requiredOption('--store <id>', 'store id')
    .option('--kind <kind>', DESTINATION_KINDS.join(' | '), argParser(parseDestinationKind), 'webhook')
    .option(
      '--url <url>',
      `http(s) URL that receives the POSTs (kind klaviyo: default ${KLAVIYO_EVENTS_URL})`,
      argParser(validateDestinationUrl),
    )
    .option('--api-key <key>', 'kind klaviyo: the private API key (pk_...), or - to read it from stdin')
    .option('--pixel <id>', 'kind meta_capi: the pixel (dataset) id; kind tiktok_events: the pixel code')
    .option('--token <token>', 'kinds meta_capi, tiktok_events: the access token (stored encrypted), or - for stdin')
    .option('--test-event-code <code>', "kinds meta_capi, tiktok_events: send to the platform's test events tool")
    .option('--customer <id>', 'kind google_ads: the Google Ads customer id (123-456-7890)')
    .option('--conversion-action <name>', 'kind google_ads: customers/<customer id>/conversionActions/<id>')
    .option(
      '--events <list>',
      `comma-separated identity events, exactly: ${IDENTITY_EVENTS.join(', ')} (default: all six)`,
      argParser(parseEventList),
    )
    .action(
      action(
        async (
          opts: StoreOpt &
            AdPlatformOpts & { kind: DestinationKind; url?: string; apiKey?: string; events?: IdentityEventName[] },
        ) => {
          if (opts.kind === 'meta_capi' || opts.kind === 'google_ads' || opts.kind === 'tiktok_events') {
            if (opts.url !== undefined || opts.apiKey !== undefined || opts.events !== undefined) {
              throw new CliError(
                `--url, --api-key and --events are not for a ${opts.kind} destination: it sends purchases`,
                1,
              );
            }
            const input = await adDestinationOf(opts.kind, opts);
            const box = requireSecretBox();
            await withDb(async (db) => {
              await requireStore(db, opts.store);
              if (input.settings.kind === 'google_ads') await requireGoogleConnection(db, opts.store);
              const d = await createAdPlatformDestination(db, box, opts.store, input);
              print({ id: d.destination_id, destination_id: d.destination_id, ...input.settings });
            });
            return;
          }
          const adOption = (['pixel', 'token', 'testEventCode', 'customer', 'conversionAction'] as const).find(
            (k) => opts[k] !== undefined,
          );
          if (adOption)
            throw new CliError(
              `--${adOption.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)} is only for the ad platforms' kinds`,
              1,
            );
          const events = opts.events ?? [...IDENTITY_EVENTS];
          if (opts.kind === 'klaviyo') {
            if (opts.apiKey === undefined) throw new CliError('--api-key is required for a klaviyo destination', 1);
            const box = requireSecretBox();
            const apiKey = await readApiKey(opts.apiKey);
            await withDb(async (db) => {
              await requireStore(db, opts.store);
              const destination = await createKlaviyoDestination(db, box, {
                storeId: opts.store,
                url: opts.url ?? KLAVIYO_EVENTS_URL,
                events,
                apiKey,
              });
              print({
                destination_id: destination.destination_id,
                kind: destination.kind,
                url: destination.url,
                events: destination.events,
              });
            });
            return;
          }
          if (opts.apiKey !== undefined) throw new CliError('--api-key is only for --kind klaviyo', 1);
          const url = opts.url;
          if (url === undefined) throw new CliError('--url is required for a webhook destination', 1);
          await withDb(async (db) => {
            await requireStore(db, opts.store);
            const { destination, secret } = await createDestination(db, { storeId: opts.store, url, events });
            print({
              destination_id: destination.destination_id,
              url: destination.url,
              events: destination.events,
              secret,
            });
          });
        },
      ),
    );

  webhook
    .command('list')
    .description('List the destinations of a store (never their secrets or keys)')
    .requiredOption('--store <id>', 'store id')
    .action(
      action(async (opts: StoreOpt) => {
        await withDb(async (db) => {
          await requireStore(db, opts.store);
          const rows = await listDestinations(db, opts.store);
          print(
            rows.map((d) => ({
              destination_id: d.destination_id,
              kind: d.kind,
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
    'Replace the signing secret of a webhook destination; prints the new one once (the old one stops signing at once)',
  ).action(
    action(async (opts: DestinationOpts) => {
      await withDb(async (db) => {
        const destination = await requireDestination(db, opts.store, opts.destination);
        if (destination.kind !== 'webhook') {
          throw new CliError(`${opts.destination} is a ${destination.kind} destination: it has no signing secret`, 1);
        }
        const secret = await rotateDestinationSecret(db, opts.store, opts.destination);
        print({ destination_id: opts.destination, secret });
      });
    }),
  );

  destinationCommand(
    'rotate-key',
    'Replace the Klaviyo private key of a klaviyo destination (stored encrypted, never printed); running ' +
      'workers use it within WEBHOOK_DESTINATION_CACHE_MS. Needs SECRETS_KEY.',
  )
    .requiredOption('--api-key <key>', 'the new private API key (pk_...), or - to read it from stdin')
    .action(
      action(async (opts: DestinationOpts & { apiKey: string }) => {
        const box = requireSecretBox();
        const apiKey = await readApiKey(opts.apiKey);
        await withDb(async (db) => {
          const destination = await requireDestination(db, opts.store, opts.destination);
          if (destination.kind !== 'klaviyo') {
            throw new CliError(`${opts.destination} is a ${destination.kind} destination: it has no Klaviyo key`, 1);
          }
          const updated = await rotateKlaviyoApiKey(db, box, opts.store, opts.destination, apiKey);
          print({ destination_id: opts.destination, kind: 'klaviyo', updated_at: updated?.updated_at });
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
    .option('--id <n>', 'only this dead letter', positiveInteger())
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
