import { getParam, normalizeHost, parseAbsoluteUrl, parseLandingUrl } from './url-params';

describe('parseLandingUrl', () => {
  it.each([
    ['https://shop.example.com/products/hat?utm_source=google#top', 'shop.example.com', '/products/hat'],
    ['https://WWW.Shop.Example.com/', 'shop.example.com', '/'],
    ['https://www.shop.example.com', 'shop.example.com', '/'],
    ['http://shop.example.com:8080/a/b/?x=1', 'shop.example.com', '/a/b/'],
    ['https://shop.example.com./cart', 'shop.example.com', '/cart'],
    ['  https://shop.example.com/p  ', 'shop.example.com', '/p'],
    ['https://www2.example.com/p', 'www2.example.com', '/p'],
    ['https://shop.example.com/caf%C3%A9', 'shop.example.com', '/caf%C3%A9'],
  ])('%s → host %s, path %s', (href, host, path) => {
    const parsed = parseLandingUrl(href);
    expect(parsed).not.toBeNull();
    expect(parsed?.host).toBe(host);
    expect(parsed?.path).toBe(path);
  });

  it.each([
    [''],
    ['   '],
    ['/products/hat?utm_source=google'],
    ['shop.example.com/products'],
    ['//shop.example.com/products'],
    ['not a url'],
    ['https://'],
    ['mailto:someone@example.com'],
    ['about:blank'],
  ])('%j → null', (href) => {
    expect(parseLandingUrl(href)).toBeNull();
  });

  it('keeps the first value per key, keys as given, decoded', () => {
    const parsed = parseLandingUrl(
      'https://s.example.com/?utm_source=News+Letter&utm_source=second&UTM_Medium=E%2Dmail&empty=&flag',
    );
    expect(parsed === null ? null : [...parsed.params]).toEqual([
      ['utm_source', 'News Letter'],
      ['UTM_Medium', 'E-mail'],
      ['empty', ''],
      ['flag', ''],
    ]);
  });

  it('ignores parameters in the fragment', () => {
    expect(parseLandingUrl('https://s.example.com/#utm_source=google')?.params.size).toBe(0);
  });

  it('parses a URL read again once, for as long as it is among the last 10,000, into a frozen result', () => {
    const href = 'https://s.example.com/landing?utm_source=kept';
    const first = parseLandingUrl(href);
    expect(Object.isFrozen(first)).toBe(true);
    expect(parseLandingUrl(href)).toBe(first);
    for (let i = 0; i < 10_000; i++) parseLandingUrl(`https://s.example.com/p${i}`);
    const again = parseLandingUrl(href);
    expect(again).not.toBe(first);
    expect(again).toEqual(first);
  });
});

describe('getParam', () => {
  const params = (query: string): ReadonlyMap<string, string> => {
    const parsed = parseLandingUrl(`https://s.example.com/${query}`);
    if (parsed === null) throw new Error('test URL must parse');
    return parsed.params;
  };

  it.each<[string, string, string | undefined]>([
    ['?utm_source=Google', 'utm_source', 'Google'],
    ['?UTM_SOURCE=Google', 'utm_source', 'Google'],
    ['?Utm_Source=Google', 'utm_source', 'Google'],
    ['?utm_source=%20%20google%20', 'utm_source', 'google'],
    ['?utm_source=+google+', 'utm_source', 'google'],
    ['?utm_source=', 'utm_source', undefined],
    ['?utm_source=%20', 'utm_source', undefined],
    ['?utm_source', 'utm_source', undefined],
    ['?UTM_SOURCE=first&utm_source=second', 'utm_source', 'first'],
    ['?utm_source=&UTM_SOURCE=fallback', 'utm_source', 'fallback'],
    ['?a=1&amp;utm_medium=email', 'utm_medium', 'email'],
    ['?sccid=abc', 'ScCid', 'abc'],
    ['?ScCid=abc', 'sccid', 'abc'],
    ['?gclid=abc', 'fbclid', undefined],
  ])('%s: %s → %j', (query, name, expected) => {
    expect(getParam(params(query), name)).toBe(expected);
  });
});

describe('normalizeHost / parseAbsoluteUrl', () => {
  it.each([
    ['WWW.Example.COM', 'example.com'],
    ['example.com.', 'example.com'],
    ['www.', 'www'],
    ['wwwexample.com', 'wwwexample.com'],
  ])('normalizeHost(%s) = %s', (input, expected) => {
    expect(normalizeHost(input)).toBe(expected);
  });

  it('accepts non-http schemes that have a host', () => {
    expect(parseAbsoluteUrl('android-app://com.google.android.gm/')?.hostname).toBe('com.google.android.gm');
  });
});
