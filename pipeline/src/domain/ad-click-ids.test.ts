import { adClickIdsOf, CLICK_WINDOW_MS } from './ad-click-ids';

const T = Date.parse('2026-11-20T12:00:00Z');
const at = (hoursBefore: number) => T - hoursBefore * 3_600_000;

describe('adClickIdsOf', () => {
  it('takes each platform its click id from the sessions that carried one (three sessions, three platforms)', () => {
    const ids = adClickIdsOf(
      [
        { at: at(72), url: 'https://shop.example/?fbclid=IwAR2F4-Z8Abc_123' },
        { at: at(48), url: 'https://shop.example/p/tee?gclid=Cj0KCQiA-abc&utm_source=google' },
        { at: at(2), url: 'https://shop.example/?ttclid=E.C.P.CsABabc' },
        { at: at(1), url: 'https://shop.example/cart' },
      ],
      T,
    );
    expect(ids).toEqual({
      fbc: `fb.1.${at(72)}.IwAR2F4-Z8Abc_123`,
      google: { kind: 'gclid', value: 'Cj0KCQiA-abc' },
      ttclid: 'E.C.P.CsABabc',
    });
  });

  it('takes the latest click before the conversion, never one after it', () => {
    const ids = adClickIdsOf(
      [
        { at: at(10), url: 'https://shop.example/?fbclid=older' },
        { at: at(5), url: 'https://shop.example/?fbclid=newer' },
        { at: T + 1000, url: 'https://shop.example/?fbclid=after' },
      ],
      T,
    );
    expect(ids.fbc).toBe(`fb.1.${at(5)}.newer`);
  });

  it("takes Google's iOS ids when there is no gclid, one of them only", () => {
    expect(adClickIdsOf([{ at: at(1), url: 'https://shop.example/?wbraid=WB1&gbraid=GB1' }], T).google).toEqual({
      kind: 'gbraid',
      value: 'GB1',
    });
  });

  it("leaves out a click older than the platform's window, a malformed id and a URL that is not one", () => {
    const ids = adClickIdsOf(
      [
        { at: T - CLICK_WINDOW_MS.meta - 1, url: 'https://shop.example/?fbclid=stale' },
        { at: at(3), url: 'https://shop.example/?ttclid=%3Cscript%3E' },
        { at: at(2), url: 'not a url' },
        { at: T - CLICK_WINDOW_MS.google + 1, url: 'https://shop.example/?gclid=kept' },
      ],
      T,
    );
    expect(ids).toEqual({ fbc: null, google: { kind: 'gclid', value: 'kept' }, ttclid: null });
  });
});
