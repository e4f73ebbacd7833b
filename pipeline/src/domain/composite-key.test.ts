import fc from 'fast-check';
import { compositeKey } from './composite-key';

const SESSION = compositeKey(['clientId', 'startedAt']);
const ROLLUP = compositeKey(['day', 'channel', 'landingPage', 'platform']);

describe('compositeKey', () => {
  it('reads every field back by name, whatever text the fields hold', () => {
    const text = fc.string({ unit: 'grapheme' }).filter((s) => !s.includes('\u0000'));
    fc.assert(
      fc.property(text, text, text, text, (day, channel, landingPage, platform) => {
        const key = ROLLUP.of({ day, channel, landingPage, platform });
        expect(ROLLUP.parts(key)).toEqual([day, channel, landingPage, platform]);
        expect(ROLLUP.get(key, 'landingPage')).toBe(landingPage);
        expect(ROLLUP.ofParts([day, channel, landingPage, platform])).toBe(key);
        expect(ROLLUP.parts(key, 'landingPage')).toEqual([day, channel, platform]);
        expect(ROLLUP.with(key, 'landingPage', '')).toBe(ROLLUP.of({ day, channel, landingPage: '', platform }));
      }),
    );
  });

  it('reads and replaces the first, a middle and the last field alike', () => {
    const text = fc.string({ unit: 'grapheme' }).filter((s) => !s.includes('\u0000'));
    const field = fc.constantFrom('day', 'channel', 'landingPage', 'platform');
    fc.assert(
      fc.property(fc.tuple(text, text, text, text), field, text, ([day, channel, landingPage, platform], f, value) => {
        const record = { day, channel, landingPage, platform };
        const key = ROLLUP.of(record);
        expect(ROLLUP.get(key, f)).toBe(record[f]);
        expect(ROLLUP.with(key, f, value)).toBe(ROLLUP.of({ ...record, [f]: value }));
      }),
    );
  });

  it('keys records with equal fields equally and others apart', () => {
    const a = SESSION.of({ clientId: 'c1', startedAt: 1700000000000 });
    expect(SESSION.of({ clientId: 'c1', startedAt: 1700000000000 })).toBe(a);
    expect(SESSION.of({ clientId: 'c1', startedAt: 1700000000001 })).not.toBe(a);
    // A separator inside one field would shift the others: no field can hold it, so "a|b" and "a", "b" differ.
    expect(ROLLUP.of({ day: '2026-11-01', channel: 'a|b', landingPage: '', platform: '' })).not.toBe(
      ROLLUP.of({ day: '2026-11-01', channel: 'a', landingPage: 'b', platform: '' }),
    );
    expect(SESSION.get(a, 'startedAt')).toBe('1700000000000');
    expect(ROLLUP.display(ROLLUP.of({ day: '2026-11-01', channel: 'paid', landingPage: '/x', platform: 'meta' }))).toBe(
      '2026-11-01|paid|/x|meta',
    );
  });

  it('gives many keys as one array per field', () => {
    const keys = [SESSION.of({ clientId: 'c1', startedAt: 1 }), SESSION.of({ clientId: 'c2', startedAt: 2 })];
    expect(SESSION.fieldArrays(keys)).toEqual([
      ['c1', 'c2'],
      ['1', '2'],
    ]);
    expect(SESSION.fieldArrays([])).toEqual([[], []]);
  });

  it('names the columns of a table keyed the same way', () => {
    expect(ROLLUP.columns).toEqual(['day', 'channel', 'landing_page', 'platform']);
    const row = { day: '2026-11-01', channel: 'paid', landing_page: '/x', platform: 'meta', weight: '5' };
    expect(ROLLUP.ofColumns(row)).toBe(
      ROLLUP.of({ day: '2026-11-01', channel: 'paid', landingPage: '/x', platform: 'meta' }),
    );
  });

  it('refuses a key of another shape', () => {
    expect(() => ROLLUP.ofParts(['2026-11-01', 'paid'])).toThrow(
      'a key of day, channel, landingPage, platform has 4 fields, got 2',
    );
    expect(() => ROLLUP.get(SESSION.of({ clientId: 'c1', startedAt: 1 }), 'day')).toThrow(
      'a key of day, channel, landingPage, platform has 4 fields, got 2',
    );
    expect(() =>
      SESSION.with(ROLLUP.of({ day: 'd', channel: '', landingPage: '', platform: '' }), 'startedAt', '1'),
    ).toThrow('a key of clientId, startedAt has 2 fields, got 4');
  });
});
