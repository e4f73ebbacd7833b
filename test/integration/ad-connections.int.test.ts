/**
 * `npm run store -- connection add meta|google|tiktok`, `connection list` and `connection remove`: JSON out, the
 * tokens sealed at rest and never printed, a bad argument named, re-adding an account renews it.
 */
import { adConnectionSecrets, recordPullFailure } from '../../storage/ad-connections';
import type { Db } from '../../storage/db';
import { createSecretBox, generateSecretsKey, parseSecretsKey } from '../../storage/secret-box';
import { createTestStore, testDb } from '../support/harness';
import { runScript, type ScriptRun } from '../support/processes';

const SECRETS_KEY = generateSecretsKey();

const store = (args: string[], env: Record<string, string> = {}): Promise<ScriptRun> =>
  runScript('store.ts', ['connection', ...args], { SECRETS_KEY, ...env });

async function ok(args: string[]): Promise<Record<string, unknown>> {
  const r = await store(args);
  if (r.code !== 0) throw new Error(`connection ${args.join(' ')} exited ${r.code}: ${r.stderr}`);
  return JSON.parse(r.stdout) as Record<string, unknown>;
}

describe('store connection add|list|remove for ad accounts', () => {
  let db: Db;
  beforeAll(() => {
    db = testDb();
  });
  afterAll(() => db.close());

  it('adds the three kinds, seals their secrets, never prints them, renews on re-add', async () => {
    const { store: s } = await createTestStore(db);
    const id = s.store_id;
    const meta = await ok([
      'add',
      'meta',
      '--store',
      id,
      '--account',
      'act_798085168510957',
      '--token',
      'EAAB-secret-meta',
    ]);
    const google = await ok([
      'add',
      'google',
      '--store',
      id,
      '--customer',
      '123-321-3210',
      '--login-customer',
      '999-000-1111',
      '--developer-token',
      'dev-secret',
      '--client-id',
      'cid',
      '--client-secret',
      'csecret',
      '--refresh-token',
      '1//refresh-secret',
    ]);
    const tiktok = await ok(['add', 'tiktok', '--store', id, '--advertiser', '872746382648', '--token', 'tt-secret']);
    expect(meta).toMatchObject({
      kind: 'meta',
      account_id: 'act_798085168510957',
      status: 'connected',
      id: expect.stringMatching(/^ac_/),
    });
    expect(google).toMatchObject({ kind: 'google', account_id: '1233213210' });
    expect(tiktok).toMatchObject({ kind: 'tiktok', account_id: '872746382648' });
    const printed = JSON.stringify([meta, google, tiktok]);
    for (const secret of ['EAAB-secret-meta', 'dev-secret', 'csecret', 'refresh-secret', 'tt-secret']) {
      expect(printed).not.toContain(secret);
    }
    const stored = await db.query<{ secrets_sealed: string }>(
      't',
      'select secrets_sealed from ad_connections where store_id = $1',
      [id],
    );
    expect(stored).toHaveLength(3);
    for (const r of stored) expect(r.secrets_sealed).not.toMatch(/secret/);
    const box = createSecretBox(parseSecretsKey(SECRETS_KEY));
    expect(await adConnectionSecrets(db, box, google.id as string)).toEqual({
      developerToken: 'dev-secret',
      clientId: 'cid',
      clientSecret: 'csecret',
      refreshToken: '1//refresh-secret',
      loginCustomer: '9990001111',
    });

    // A failing connection renewed with a new token: same id, connected again.
    await recordPullFailure(db, meta.id as string, 'meta: Error validating access token (code 190)');
    const listed = await ok(['list', '--store', id]);
    expect(listed).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ id: meta.id, status: 'failing', last_error: expect.stringContaining('code 190') }),
      ]),
    );
    const renewed = await ok(['add', 'meta', '--store', id, '--account', 'act_798085168510957', '--token', 'EAAB-new']);
    expect(renewed).toMatchObject({ id: meta.id, status: 'connected', last_error: null });
    expect(await adConnectionSecrets(db, box, meta.id as string)).toEqual({ token: 'EAAB-new' });

    // Removed: listed no more, and removing it again names it.
    expect(await ok(['remove', '--store', id, '--id', tiktok.id as string])).toEqual({ id: tiktok.id, removed: true });
    const after = (await ok(['list', '--store', id])) as unknown as Array<{ id: string }>;
    expect(after.map((c) => c.id).sort()).toEqual([meta.id, google.id].sort());
    const again = await store(['remove', '--store', id, '--id', tiktok.id as string]);
    expect(again).toMatchObject({ code: 3, stderr: expect.stringContaining(`has no connection ${String(tiktok.id)}`) });
  });

  it('names a bad argument, an unknown store and a missing SECRETS_KEY', async () => {
    const { store: s } = await createTestStore(db);
    const badAccount = await store(['add', 'meta', '--store', s.store_id, '--account', '12345', '--token', 't']);
    expect(badAccount.code).not.toBe(0);
    expect(badAccount.stderr).toContain('"12345" is not an ad account id (act_<digits>)');
    const noStore = await store(['add', 'tiktok', '--store', 'no_such_store', '--advertiser', '1', '--token', 't']);
    expect(noStore).toMatchObject({ code: 3, stderr: expect.stringContaining('no store with id no_such_store') });
    const noKey = await store(['add', 'tiktok', '--store', s.store_id, '--advertiser', '1', '--token', 't'], {
      SECRETS_KEY: '',
    });
    expect(noKey).toMatchObject({ code: 2, stderr: expect.stringContaining('SECRETS_KEY is not set') });
  });
});
