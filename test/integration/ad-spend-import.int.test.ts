/**
 * `npm run spend -- import <file.csv>`: a Google Ads and a Meta Ads Manager export reach the ad report exactly,
 * a second import of the same days replaces them (a row gone is retracted), and a bad file names its first bad
 * row and changes nothing.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import request from 'supertest';
import type { AdRecord } from '../../contracts/src/ads';
import type { RunningApi } from '../../query-api/src/app/api';
import type { RunningPipeline } from '../../pipeline/src/app/daemon';
import type { Db } from '../../storage/db';
import {
  createTestStore,
  pacer,
  startTestApi,
  startTestPipeline,
  testDb,
  waitFor,
  type TestStore,
} from '../support/harness';
import { runScript, type ScriptRun } from '../support/processes';

const ROOT = path.join(__dirname, '..', '..');
const FIXTURES = path.join(ROOT, 'test', 'fixtures');
const dir = mkdtempSync(path.join(tmpdir(), 'spend-import-'));

let db: Db;
let api: RunningApi;
let pipeline: RunningPipeline;
let shop: TestStore;

const spendImport = (file: string): Promise<ScriptRun> =>
  runScript('spend.ts', ['import', file, '--store', shop.store.store_id]);

const paced = pacer();
async function byPlatform(start: string, end: string): Promise<Record<string, unknown>> {
  const res = await paced('ads', () =>
    request(api.url)
      .post('/v2-4-2/api/get/ad-analysis/list')
      .set('ApiKey', shop.credentials.api_key)
      .send({
        start_date: start,
        end_date: end,
        dimensions: ['platform'],
        model: 'last',
        goal: 'purchase',
        page: 1,
        page_size: 100,
      }),
  );
  expect(res.status).toBe(200);
  const records = (res.body as { data: { records: AdRecord[] } }).data.records;
  return Object.fromEntries(
    records.map((r) => [r.platform, { spend: r.spend, impressions: r.impressions, clicks: r.clicks }]),
  );
}

beforeAll(async () => {
  db = testDb();
  api = await startTestApi();
  pipeline = await startTestPipeline();
  shop = await createTestStore(db, { timezone: 'UTC', currency: 'USD' });
});

afterAll(async () => {
  await pipeline.stop();
  await api.stop();
  await db.close();
});

it('imports both exports exactly, replaces the days on a second import, refuses a bad file', async () => {
  const google = path.join(FIXTURES, 'google-ads', 'ad-report-export.csv');
  const r = await spendImport(google);
  expect(r.code).toBe(0);
  expect(JSON.parse(r.stdout)).toMatchObject({
    platform: 'google',
    accounts: [{ account_id: '1233213210', from: '2024-06-01', to: '2024-06-02', rows: 3, days: 2, retracted: 0 }],
  });
  // By hand: 1,061.08 + 1,109.22 + 1,164.81; 3,120 + 3,410 + 2,980; 204 + 220 + 206.
  const all = { google: { spend: 3335.11, impressions: 9510, clicks: 630 } };
  await waitFor(
    () => byPlatform('2024-06-01', '2024-06-03'),
    (g) => JSON.stringify(g) === JSON.stringify(all),
    30_000,
    200,
  );

  const meta = await spendImport(path.join(FIXTURES, 'meta', 'ads-manager-export.csv'));
  expect(meta.code).toBe(0);
  expect(JSON.parse(meta.stdout)).toMatchObject({
    platform: 'facebook',
    accounts: [{ account_id: 'act_798085168510957', rows: 2 }],
  });
  await waitFor(
    () => byPlatform('2023-06-01', '2023-06-03'),
    (g) => JSON.stringify(g) === JSON.stringify({ facebook: { spend: 22.88, impressions: 356, clicks: 13 } }),
    30_000,
    200,
  );

  // The same days again without the generic ad's row: it is retracted, nothing doubles.
  const fewer = path.join(dir, 'fewer.csv');
  writeFileSync(
    fewer,
    readFileSync(google, 'utf8')
      .split('\r\n')
      .filter((l) => !l.includes('Generic broad'))
      .join('\r\n'),
  );
  const again = await spendImport(fewer);
  expect(again.code).toBe(0);
  expect(JSON.parse(again.stdout)).toMatchObject({ accounts: [{ rows: 2, retracted: 1 }] });
  const replaced = { google: { spend: 2170.3, impressions: 6530, clicks: 424 } };
  await waitFor(
    () => byPlatform('2024-06-01', '2024-06-03'),
    (g) => JSON.stringify(g) === JSON.stringify(replaced),
    30_000,
    200,
  );

  const bad = path.join(dir, 'bad.csv');
  writeFileSync(bad, readFileSync(google, 'utf8').replace('"1,109.22"', 'n/a'));
  const refused = await spendImport(bad);
  expect(refused.code).toBe(1);
  expect(refused.stderr).toContain('line 5: Cost "n/a" is not an amount');
  expect(await byPlatform('2024-06-01', '2024-06-03')).toEqual(replaced);
});
