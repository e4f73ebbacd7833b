/**
 * Store platform connections (docs/product.md, Store connections):
 *   npm run store -- connection add shopify --store <id> --shop <name>.myshopify.com --secret <client secret>
 *   npm run store -- connection add woocommerce --store <id> --site <url> --secret <webhook secret>
 *   npm run store -- connection add meta|google|tiktok ...   (scripts/ad-connection-cli.ts)
 *   npm run store -- connection list --store <id>
 *   npm run store -- connection remove --store <id> --id <sc_...|ac_...>
 * `add` prints one JSON object with the connection's id, kind and webhook_url (paste it into the platform's
 * webhook settings). The secret is stored sealed under SECRETS_KEY (the API needs the same value) and never
 * printed. `--secret -` reads it from stdin, out of shell history and ps.
 */
import { InvalidArgumentError, type Command } from 'commander';
import { listAdConnections, removeAdConnection } from '../storage/ad-connections';
import {
  createConnection,
  listConnections,
  normalizeShopDomain,
  normalizeSiteUrl,
  removeConnection,
  type ConnectionKind,
  type StoreConnection,
} from '../storage/store-connections';
import { adConnectionJson, registerAdConnectionCommands } from './ad-connection-cli';
import { action, CliError, requireSecretBox, requireStore, withDb } from './connection-cli-support';

const print = (value: unknown): void => console.log(JSON.stringify(value, null, 2));

async function readSecret(value: string): Promise<string> {
  let text = value;
  if (value === '-') {
    const chunks: Buffer[] = [];
    for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
    text = Buffer.concat(chunks).toString('utf8');
  }
  text = text.trim();
  if (text.length < 8 || text.length > 512) throw new CliError('--secret: must have 8 to 512 characters', 1);
  return text;
}

/** The API's public base URL, as the platforms reach it: PUBLIC_API_URL, else https://SHORT_LINK_HOST. */
export function publicBaseUrl(env: Record<string, string | undefined> = process.env): string {
  const explicit = env.PUBLIC_API_URL?.trim();
  if (explicit) return explicit.replace(/\/+$/, '');
  const host = env.SHORT_LINK_HOST?.trim();
  return host ? `https://${host}` : 'http://localhost:8080';
}

export function webhookUrl(connection: Pick<StoreConnection, 'kind' | 'connection_id'>, base: string): string {
  return `${base}/hooks/${connection.kind}/${connection.connection_id}`;
}

function describe(connection: StoreConnection, base: string) {
  return {
    id: connection.connection_id,
    kind: connection.kind,
    store_id: connection.store_id,
    account: connection.account,
    webhook_url: webhookUrl(connection, base),
    created_at: connection.created_at,
  };
}

async function add(opts: { store: string; secret: string }, kind: ConnectionKind, account: string): Promise<void> {
  const box = requireSecretBox('the API');
  const secret = await readSecret(opts.secret);
  await withDb(async (db) => {
    await requireStore(db, opts.store);
    try {
      const connection = await createConnection(db, box, { storeId: opts.store, kind, account, secret });
      print(describe(connection, publicBaseUrl()));
    } catch (err) {
      if ((err as { code?: string }).code === '23505')
        throw new CliError(`store ${opts.store} already has a ${kind} connection for ${account}`, 1);
      throw err;
    }
  });
}

export function registerConnectionCommands(program: Command): Command {
  const connection = program
    .command('connection')
    .description('Store platforms that send signed order webhooks, and ad accounts whose spend is pulled')
    .showHelpAfterError();
  const addCommand = connection
    .command('add')
    .description('Connect a platform; prints the connection (for a store platform, its webhook URL)');
  addCommand
    .command('shopify')
    .description('A Shopify shop: webhooks signed with the app client secret (X-Shopify-Hmac-Sha256)')
    .requiredOption('--store <id>', 'store id')
    .requiredOption('--shop <domain>', '<name>.myshopify.com', (v: string) => {
      const domain = normalizeShopDomain(v);
      if (!domain) throw new InvalidArgumentError('must be a <name>.myshopify.com domain');
      return domain;
    })
    .requiredOption('--secret <secret>', "the app's client secret (API secret key), or - to read it from stdin")
    .action(action((opts: { store: string; shop: string; secret: string }) => add(opts, 'shopify', opts.shop)));
  addCommand
    .command('woocommerce')
    .description('A WooCommerce site: webhooks signed with the webhook secret (X-WC-Webhook-Signature)')
    .requiredOption('--store <id>', 'store id')
    .requiredOption('--site <url>', 'the site URL, e.g. https://shop.example', (v: string) => {
      const site = normalizeSiteUrl(v);
      if (!site) throw new InvalidArgumentError('must be an absolute http(s) URL');
      return site;
    })
    .requiredOption('--secret <secret>', "the webhook's secret, or - to read it from stdin")
    .action(action((opts: { store: string; site: string; secret: string }) => add(opts, 'woocommerce', opts.site)));
  registerAdConnectionCommands(addCommand);

  connection
    .command('list')
    .description('The connections of a store, store platforms then ad accounts (never their secrets)')
    .requiredOption('--store <id>', 'store id')
    .action(
      action(async (opts: { store: string }) => {
        await withDb(async (db) => {
          await requireStore(db, opts.store);
          const base = publicBaseUrl();
          print([
            ...(await listConnections(db, opts.store)).map((c) => describe(c, base)),
            ...(await listAdConnections(db, opts.store)).map(adConnectionJson),
          ]);
        });
      }),
    );

  connection
    .command('remove')
    .description('Remove a connection: its webhook URL answers 404, or its spend is no longer pulled (rows kept)')
    .requiredOption('--store <id>', 'store id')
    .requiredOption('--id <id>', 'connection id (sc_... or ac_...)')
    .action(
      action(async (opts: { store: string; id: string }) => {
        await withDb(async (db) => {
          await requireStore(db, opts.store);
          const removed =
            (await removeConnection(db, opts.store, opts.id)) || (await removeAdConnection(db, opts.store, opts.id));
          if (!removed) throw new CliError(`store ${opts.store} has no connection ${opts.id}`, 3);
          print({ id: opts.id, removed: true });
        });
      }),
    );
  return connection;
}
