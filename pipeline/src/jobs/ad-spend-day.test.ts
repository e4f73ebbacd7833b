/**
 * A pulled day of ad spend travels as one message (`ad_spend_day`) and decodes to all its rows, so the pipeline
 * applies the day in one batch, one transaction; a bad row poisons the whole day rather than half of it.
 */
import { eventSubject, parseEventSubject, SPEND_DAY_SUBJECT_NAME } from '../../../contracts/src/subjects';
import type { AdSpendRow } from '../../../contracts/src/pushes';
import { sampleAdSpendRow } from '../../../test/support/samples';
import { decodeMessage } from '../domain/decode-message';
import { MAX_DAY_ROWS, spendDayMessages } from './ad-spend-pull';

const encoder = new TextEncoder();
const row = (date: string, adId: string, extra: Partial<AdSpendRow> = {}): AdSpendRow => ({
  ...sampleAdSpendRow(),
  platform: 'facebook',
  account_id: 'act_1',
  date,
  ad_id: adId,
  updated_at: '2026-03-02T10:00:00.000Z',
  ...extra,
});

describe('spendDayMessages', () => {
  it('puts each (platform, account, day) in one message on one partition, whatever the rows order', () => {
    const rows = [row('2026-03-01', 'a'), row('2026-03-02', 'a'), row('2026-03-01', 'b'), row('2026-03-01', 'c')];
    const messages = spendDayMessages('st_a', rows, 8);
    expect(messages).toHaveLength(2);
    const days = messages.map((m) => (JSON.parse(m.payload) as { rows: AdSpendRow[] }).rows);
    expect(days.map((d) => d.map((r) => `${r.date}/${r.ad_id}`))).toEqual([
      ['2026-03-01/a', '2026-03-01/b', '2026-03-01/c'],
      ['2026-03-02/a'],
    ]);
    for (const m of messages) expect(parseEventSubject(m.subject)?.name).toBe(SPEND_DAY_SUBJECT_NAME);
    // The same content is the same message id (a republished identical day is a duplicate); other content is not.
    expect(spendDayMessages('st_a', rows, 8).map((m) => m.msgId)).toEqual(messages.map((m) => m.msgId));
    const restated = spendDayMessages('st_a', [{ ...rows[0]!, spend: 99 }, ...rows.slice(1)], 8);
    expect(restated[0]!.msgId).not.toBe(messages[0]!.msgId);
    expect(restated[1]!.msgId).toBe(messages[1]!.msgId);
  });

  it('splits a day of more than MAX_DAY_ROWS rows into messages of at most that many', () => {
    const rows = Array.from({ length: MAX_DAY_ROWS * 2 + 1 }, (_, i) => row('2026-03-01', `ad${i}`));
    const sizes = spendDayMessages('st_a', rows, 8).map((m) => (JSON.parse(m.payload) as { rows: unknown[] }).rows);
    expect(sizes.map((r) => r.length)).toEqual([MAX_DAY_ROWS, MAX_DAY_ROWS, 1]);
  });
});

describe('decodeMessage of an ad_spend_day message', () => {
  const subject = eventSubject(2, 'st_a', SPEND_DAY_SUBJECT_NAME);

  it('decodes to every row of the day', () => {
    const [message] = spendDayMessages('st_a', [row('2026-03-01', 'a'), row('2026-03-01', 'b')], 8);
    const decoded = decodeMessage(subject, encoder.encode(message!.payload), Date.now());
    if (decoded.kind !== 'ad_spend') throw new Error(JSON.stringify(decoded));
    expect(decoded.storeId).toBe('st_a');
    expect(decoded.rows.map((r) => r.ad_id)).toEqual(['a', 'b']);
  });

  it('poisons the whole day for one bad row, naming it', () => {
    const body = JSON.stringify({ rows: [row('2026-03-01', 'a'), { ...row('2026-03-01', 'b'), spend: 'x' }] });
    const decoded = decodeMessage(subject, encoder.encode(body), Date.now());
    expect(decoded).toMatchObject({ kind: 'poison', storeId: 'st_a' });
    expect((decoded as { reason: string }).reason).toMatch(/^invalid ad spend day: rows\[1\]: spend/);
    expect(decodeMessage(subject, encoder.encode('{"rows":{}}'), Date.now())).toMatchObject({
      kind: 'poison',
      reason: 'invalid ad spend day: rows must be an array',
    });
  });
});
