/**
 * `npm run store -- connection add|list|remove` (scripts/connection-cli.ts) against the real database: JSON
 * output with the connection id, kind and webhook URL; the secret is sealed, never printed, never listed.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import type { Db } from '../../storage/db';
import { generateSecretsKey } from '../../storage/secret-box';
import { baseEnv, createTestStore, testDb, type TestStore } from '../support/harness';

const run = promisify(execFile);
const ROOT = path.join(__dirname, '..', '..');
const SECRETS_KEY = generateSecretsKey();
const SHOPIFY_SECRET = 'shpss_cli_client_secret_0123456789';
const WOO_SECRET = 'woo cli webhook secret 0123456789';

let db: Db;
let shop: TestStore;

beforeAll(async () => {
  db = testDb();
  shop = await createTestStore(db);
});
afterAll(() => db.close());

function storeCli(args: string[], env: Record<string, string> = {}): Promise<{ stdout: string; stderr: string }> {
  return run(process.execPath, ['--import', 'tsx', 'scripts/store.ts', 'connection', ...args], {
    cwd: ROOT,
    env: { ...process.env, ...baseEnv(), SECRETS_KEY, PUBLIC_API_URL: 'https://attribution.example/', ...env },
  });
}

/** The exit code and stderr of a run that must fail. */
const failure = (p: Promise<unknown>): Promise<{ code: number; stderr: string }> =>
  p.then(
    () => {
      throw new Error('expected the command to fail');
    },
    (err: { code: number; stderr: string }) => ({ code: err.code, stderr: err.stderr }),
  );

describe('store connection CLI', () => {
  it('adds, lists and removes connections; the secret is never printed', async () => {
    const store = shop.store.store_id;
    const added = await storeCli([
      'add',
      'shopify',
      '--store',
      store,
      '--shop',
      'https://CLI-Shop.myshopify.com/admin',
      '--secret',
      SHOPIFY_SECRET,
    ]);
    const shopify = JSON.parse(added.stdout) as Record<string, string>;
    expect(shopify).toMatchObject({ kind: 'shopify', store_id: store, account: 'cli-shop.myshopify.com' });
    expect(shopify.id).toMatch(/^sc_[a-z0-9]{26}$/);
    expect(shopify.webhook_url).toBe(`https://attribution.example/hooks/shopify/${shopify.id}`);
    expect(added.stdout + added.stderr).not.toContain(SHOPIFY_SECRET);

    const woo = JSON.parse(
      (
        await storeCli([
          'add',
          'woocommerce',
          '--store',
          store,
          '--site',
          'https://shop.example/',
          '--secret',
          WOO_SECRET,
        ])
      ).stdout,
    ) as Record<string, string>;
    expect(woo).toMatchObject({ kind: 'woocommerce', account: 'https://shop.example' });
    expect(woo.webhook_url).toBe(`https://attribution.example/hooks/woocommerce/${woo.id}`);

    // Stored sealed: the row does not hold the secret in clear.
    const rows = await db.query<{ secret_sealed: string }>(
      'test.sealed',
      'select secret_sealed from store_connections where store_id = $1',
      [store],
    );
    expect(rows).toHaveLength(2);
    for (const r of rows) expect(r.secret_sealed).not.toMatch(/0123456789/);

    const listed = await storeCli(['list', '--store', store]);
    const list = JSON.parse(listed.stdout) as Array<Record<string, string>>;
    expect(list.map((c) => [c.id, c.kind, c.webhook_url])).toEqual([
      [shopify.id, 'shopify', shopify.webhook_url],
      [woo.id, 'woocommerce', woo.webhook_url],
    ]);
    expect(listed.stdout).not.toContain(SHOPIFY_SECRET);
    expect(listed.stdout).not.toContain(WOO_SECRET);
    expect(listed.stdout).not.toMatch(/secret/i);

    // The same shop twice is refused, naming it.
    const twice = await failure(
      storeCli(['add', 'shopify', '--store', store, '--shop', 'cli-shop.myshopify.com', '--secret', SHOPIFY_SECRET]),
    );
    expect(twice.code).toBe(1);
    expect(twice.stderr).toContain('cli-shop.myshopify.com');

    expect(JSON.parse((await storeCli(['remove', '--store', store, '--id', shopify.id!])).stdout)).toEqual({
      id: shopify.id,
      removed: true,
    });
    expect(
      (JSON.parse((await storeCli(['list', '--store', store])).stdout) as Array<{ id: string }>).map((c) => c.id),
    ).toEqual([woo.id]);
    const again = await failure(storeCli(['remove', '--store', store, '--id', shopify.id!]));
    expect(again.code).toBe(3);
  });

  it('refuses without SECRETS_KEY, and a domain that is not a shop, naming what is wrong', async () => {
    const store = shop.store.store_id;
    const noKey = await failure(
      storeCli(['add', 'shopify', '--store', store, '--shop', 'k.myshopify.com', '--secret', SHOPIFY_SECRET], {
        SECRETS_KEY: '',
      }),
    );
    expect(noKey.code).toBe(2);
    expect(noKey.stderr).toContain('SECRETS_KEY');
    const notShop = await failure(
      storeCli(['add', 'shopify', '--store', store, '--shop', 'shop.example.com', '--secret', SHOPIFY_SECRET]),
    );
    expect(notShop.code).not.toBe(0);
    expect(notShop.stderr).toContain('myshopify.com');
    const unknownStore = await failure(storeCli(['list', '--store', 'st_does_not_exist']));
    expect(unknownStore.code).toBe(3);
  });
});
