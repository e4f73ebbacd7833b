/**
 * Ad-platform connections of a store, as `store connection add ...` subcommands beside the store platforms'
 * (scripts/connection-cli.ts, which lists and removes both; docs/product.md, Ad spend from the ad platforms):
 *   npm run store -- connection add meta --store <id> --account <act_...> --token <t>
 *   npm run store -- connection add google --store <id> --customer <id> [--login-customer <id>]
 *       --developer-token <t> --client-id <id> --client-secret <s> --refresh-token <t>
 *   npm run store -- connection add tiktok --store <id> --advertiser <id> --token <t>
 * Each prints one JSON object (`id`, `kind`, ...). Tokens and secrets are stored sealed under SECRETS_KEY and
 * never printed; adding the same account again replaces its credentials and marks it connected.
 */
import { type Command, InvalidArgumentError } from 'commander';
import { upsertAdConnection, type AdConnection, type AdConnectionKind } from '../storage/ad-connections';
import { action, requireSecretBox, requireStore, withDb } from './connection-cli-support';

const nonEmpty =
  (name: string, pattern?: RegExp, hint = '') =>
  (v: string): string => {
    const t = v.trim();
    if (!t) throw new InvalidArgumentError(`${name} is empty`);
    if (pattern && !pattern.test(t)) throw new InvalidArgumentError(`"${t}" is not ${hint}`);
    return t;
  };

const googleId = (name: string) => (v: string) =>
  nonEmpty(name, /^\d{3}-?\d{3}-?\d{4}$/, 'a Google Ads customer id (123-456-7890)')(v).replace(/-/g, '');

/** What listing and adding print: never a token or secret. */
export function adConnectionJson(c: AdConnection): Record<string, unknown> {
  return {
    id: c.id,
    kind: c.kind,
    store_id: c.storeId,
    account_id: c.accountId,
    status: c.status,
    last_error: c.lastError,
    last_pull_at: c.lastPullAt?.toISOString() ?? null,
    rows: c.lastRows,
    days: c.lastDays,
    first_day: c.firstDay,
    last_day: c.lastDay,
  };
}

async function add(
  kind: AdConnectionKind,
  store: string,
  accountId: string,
  secrets: Record<string, string>,
): Promise<void> {
  const box = requireSecretBox('the pipeline');
  await withDb(async (db) => {
    await requireStore(db, store);
    const c = await upsertAdConnection(db, box, { storeId: store, kind, accountId, secrets });
    console.log(JSON.stringify(adConnectionJson(c)));
  });
}

/** Registers `meta`, `google` and `tiktok` under `store connection add`. */
export function registerAdConnectionCommands(addCmd: Command): void {
  addCmd
    .command('meta')
    .description('A Meta ad account, with a system-user token that has ads_read')
    .requiredOption('--store <id>', 'store id')
    .requiredOption(
      '--account <act_...>',
      'ad account id',
      nonEmpty('--account', /^act_\d+$/, 'an ad account id (act_<digits>)'),
    )
    .requiredOption('--token <t>', 'access token', nonEmpty('--token'))
    .action(
      action(async (o: { store: string; account: string; token: string }) =>
        add('meta', o.store, o.account, { token: o.token }),
      ),
    );
  addCmd
    .command('google')
    .description('A Google Ads customer, with a developer token and an OAuth client and refresh token')
    .requiredOption('--store <id>', 'store id')
    .requiredOption('--customer <id>', 'customer id', googleId('--customer'))
    .option('--login-customer <id>', 'manager account id, when access goes through one', googleId('--login-customer'))
    .requiredOption('--developer-token <t>', 'developer token', nonEmpty('--developer-token'))
    .requiredOption('--client-id <id>', 'OAuth client id', nonEmpty('--client-id'))
    .requiredOption('--client-secret <s>', 'OAuth client secret', nonEmpty('--client-secret'))
    .requiredOption('--refresh-token <t>', 'OAuth refresh token', nonEmpty('--refresh-token'))
    .action(
      action(
        async (o: {
          store: string;
          customer: string;
          loginCustomer?: string;
          developerToken: string;
          clientId: string;
          clientSecret: string;
          refreshToken: string;
        }) =>
          add('google', o.store, o.customer, {
            developerToken: o.developerToken,
            clientId: o.clientId,
            clientSecret: o.clientSecret,
            refreshToken: o.refreshToken,
            ...(o.loginCustomer ? { loginCustomer: o.loginCustomer } : {}),
          }),
      ),
    );
  addCmd
    .command('tiktok')
    .description('A TikTok advertiser, with a long-lived access token')
    .requiredOption('--store <id>', 'store id')
    .requiredOption(
      '--advertiser <id>',
      'advertiser id',
      nonEmpty('--advertiser', /^\d+$/, 'an advertiser id (digits)'),
    )
    .requiredOption('--token <t>', 'access token', nonEmpty('--token'))
    .action(
      action(async (o: { store: string; advertiser: string; token: string }) =>
        add('tiktok', o.store, o.advertiser, { token: o.token }),
      ),
    );
}
