import channelSources from './channel-sources.json';
import { classifyReferrer, compileHostPattern, lookupNetwork, normalizeOwnHost, type ReferrerKind } from './referrer';

const OWN = ['shop.example.com'];

describe('classifyReferrer', () => {
  it.each<[string, ReferrerKind, string, string]>([
    // none
    ['', 'none', '', ''],
    ['   ', 'none', '', ''],
    ['not a url', 'none', '', ''],
    ['/relative/path', 'none', '', ''],
    ['www.google.com', 'none', '', ''],
    ['about:blank', 'none', '', ''],
    // self
    ['https://shop.example.com/products/hat', 'self', 'shop.example.com', 'shop.example.com'],
    ['https://www.shop.example.com/cart', 'self', 'www.shop.example.com', 'shop.example.com'],
    ['https://SHOP.example.com:443/', 'self', 'shop.example.com', 'shop.example.com'],
    // search engines
    ['https://www.google.com/', 'search', 'www.google.com', 'google'],
    ['https://google.com/search?q=hat', 'search', 'google.com', 'google'],
    ['https://www.google.co.uk/', 'search', 'www.google.co.uk', 'google'],
    ['https://www.google.de/', 'search', 'www.google.de', 'google'],
    ['https://www.google.com.au/', 'search', 'www.google.com.au', 'google'],
    ['https://www.google.co.jp/', 'search', 'www.google.co.jp', 'google'],
    ['https://news.google.com/', 'search', 'news.google.com', 'google'],
    ['https://www.bing.com/search?q=x', 'search', 'www.bing.com', 'bing'],
    ['https://cn.bing.com/', 'search', 'cn.bing.com', 'bing'],
    ['https://duckduckgo.com/', 'search', 'duckduckgo.com', 'duckduckgo'],
    ['https://html.duckduckgo.com/html/', 'search', 'html.duckduckgo.com', 'duckduckgo'],
    ['https://search.yahoo.com/search?p=x', 'search', 'search.yahoo.com', 'yahoo'],
    ['https://uk.search.yahoo.com/', 'search', 'uk.search.yahoo.com', 'yahoo'],
    ['https://search.yahoo.co.jp/', 'search', 'search.yahoo.co.jp', 'yahoo'],
    ['https://www.baidu.com/link?url=x', 'search', 'www.baidu.com', 'baidu'],
    ['https://m.baidu.com/', 'search', 'm.baidu.com', 'baidu'],
    ['https://yandex.ru/', 'search', 'yandex.ru', 'yandex'],
    ['https://yandex.com/', 'search', 'yandex.com', 'yandex'],
    ['https://yandex.com.tr/', 'search', 'yandex.com.tr', 'yandex'],
    ['https://www.ecosia.org/search?q=x', 'search', 'www.ecosia.org', 'ecosia'],
    // social networks
    ['https://www.facebook.com/', 'social', 'www.facebook.com', 'facebook'],
    ['https://facebook.com/', 'social', 'facebook.com', 'facebook'],
    ['https://m.facebook.com/', 'social', 'm.facebook.com', 'facebook'],
    ['https://l.facebook.com/l.php?u=x', 'social', 'l.facebook.com', 'facebook'],
    ['https://lm.facebook.com/', 'social', 'lm.facebook.com', 'facebook'],
    ['https://www.instagram.com/', 'social', 'www.instagram.com', 'instagram'],
    ['https://l.instagram.com/', 'social', 'l.instagram.com', 'instagram'],
    ['https://t.co/abc', 'social', 't.co', 'twitter'],
    ['https://twitter.com/', 'social', 'twitter.com', 'twitter'],
    ['https://x.com/someone', 'social', 'x.com', 'twitter'],
    ['https://www.linkedin.com/feed/', 'social', 'www.linkedin.com', 'linkedin'],
    ['https://lnkd.in/abc', 'social', 'lnkd.in', 'linkedin'],
    ['https://www.pinterest.com/', 'social', 'www.pinterest.com', 'pinterest'],
    ['https://www.pinterest.co.uk/', 'social', 'www.pinterest.co.uk', 'pinterest'],
    ['https://br.pinterest.com/', 'social', 'br.pinterest.com', 'pinterest'],
    ['https://www.pinterest.de/', 'social', 'www.pinterest.de', 'pinterest'],
    ['https://www.reddit.com/r/x', 'social', 'www.reddit.com', 'reddit'],
    ['https://old.reddit.com/', 'social', 'old.reddit.com', 'reddit'],
    ['https://www.tiktok.com/', 'social', 'www.tiktok.com', 'tiktok'],
    ['https://www.youtube.com/watch?v=1', 'social', 'www.youtube.com', 'youtube'],
    ['https://m.youtube.com/', 'social', 'm.youtube.com', 'youtube'],
    ['https://youtu.be/abc', 'social', 'youtu.be', 'youtube'],
    // other
    ['https://www.someblog.com/post/1', 'other', 'www.someblog.com', 'someblog.com'],
    ['https://Blog.Example.ORG/x', 'other', 'blog.example.org', 'blog.example.org'],
    ['https://example.com/', 'other', 'example.com', 'example.com'],
    ['https://checkout.example.com/', 'other', 'checkout.example.com', 'checkout.example.com'],
    ['https://yahoo.com/', 'other', 'yahoo.com', 'yahoo.com'],
    ['https://mail.google.com/', 'other', 'mail.google.com', 'mail.google.com'],
    ['https://google.example.com/', 'other', 'google.example.com', 'google.example.com'],
    ['https://notgoogle.com/', 'other', 'notgoogle.com', 'notgoogle.com'],
    ['https://facebook.com.evil.net/', 'other', 'facebook.com.evil.net', 'facebook.com.evil.net'],
    ['https://myfacebook.com/', 'other', 'myfacebook.com', 'myfacebook.com'],
    ['https://nott.co/', 'other', 'nott.co', 'nott.co'],
    ['android-app://com.google.android.gm/', 'other', 'com.google.android.gm', 'com.google.android.gm'],
  ])('%j → %s %s %s', (referrer, kind, host, name) => {
    expect(classifyReferrer(referrer, OWN)).toEqual({ kind, host, name });
  });

  it.each([
    [['www.shop.example.com'], 'https://shop.example.com/'],
    [['shop.example.com'], 'https://www.shop.example.com/'],
    [['https://Shop.Example.com/'], 'https://shop.example.com/x'],
    [['shop.example.com:8443'], 'https://shop.example.com/x'],
    [['other.example', 'shop.example.com'], 'https://shop.example.com/'],
  ])('own hosts %j make %s self', (ownHosts, referrer) => {
    expect(classifyReferrer(referrer, ownHosts).kind).toBe('self');
  });

  it('does not treat subdomains of an own host or an empty own host as self', () => {
    expect(classifyReferrer('https://blog.shop.example.com/', OWN).kind).toBe('other');
    expect(classifyReferrer('https://shop.example.com/', ['']).kind).toBe('other');
  });

  it('lets an own host win over the network tables', () => {
    expect(classifyReferrer('https://www.google.com/', ['google.com'])).toEqual({
      kind: 'self',
      host: 'www.google.com',
      name: 'google.com',
    });
  });
});

describe('compileHostPattern', () => {
  it.each<[string, string, boolean]>([
    ['t.co', 't.co', true],
    ['t.co', 'x.t.co', false],
    ['*.facebook.com', 'facebook.com', true],
    ['*.facebook.com', 'a.b.facebook.com', true],
    ['*.facebook.com', 'xfacebook.com', false],
    ['google.*', 'google.com', true],
    ['google.*', 'google.co.uk', true],
    ['google.*', 'google.com.br', true],
    ['google.*', 'google.ne.jp', true],
    ['google.*', 'google.example.com', false],
    ['google.*', 'news.google.com', false],
    ['google.*', 'google', false],
    ['*.pinterest.*', 'pinterest.fr', true],
    ['*.pinterest.*', 'ar.pinterest.com', true],
    ['*.pinterest.*', 'pinterest.com.mx', true],
  ])('%s matches %s: %s', (pattern, host, expected) => {
    expect(compileHostPattern(pattern).test(host)).toBe(expected);
  });

  it.each(['', '*.', 'a.*.b', '*'])('rejects %j', (pattern) => {
    expect(() => compileHostPattern(pattern)).toThrow('invalid host pattern');
  });
});

describe('lookupNetwork / normalizeOwnHost', () => {
  it.each([
    ['WWW.Google.Co.Uk', { kind: 'search', name: 'google' }],
    ['m.facebook.com', { kind: 'social', name: 'facebook' }],
    ['example.com', undefined],
    ['', undefined],
  ])('lookupNetwork(%j)', (host, expected) => {
    expect(lookupNetwork(host)).toEqual(expected);
  });

  it.each([
    ['https://www.Shop.example.com/path?q=1', 'shop.example.com'],
    ['shop.example.com:8080', 'shop.example.com'],
    ['  WWW.shop.example.com ', 'shop.example.com'],
  ])('normalizeOwnHost(%j) = %s', (input, expected) => {
    expect(normalizeOwnHost(input)).toBe(expected);
  });
});

describe('referrer host tables (channel-sources.json)', () => {
  const tables = channelSources.referrerHosts;

  it('covers the search engines and social networks docs/product.md, Sessions and touchpoints names', () => {
    expect(Object.keys(tables.search)).toEqual(['google', 'bing', 'duckduckgo', 'yahoo', 'baidu', 'yandex', 'ecosia']);
    expect(Object.keys(tables.social)).toEqual([
      'facebook',
      'instagram',
      'twitter',
      'linkedin',
      'pinterest',
      'reddit',
      'tiktok',
      'youtube',
    ]);
  });

  it('has only lower-case, compilable patterns', () => {
    for (const patterns of [...Object.values(tables.search), ...Object.values(tables.social)]) {
      for (const p of patterns) {
        expect(p).toBe(p.trim().toLowerCase());
        expect(() => compileHostPattern(p)).not.toThrow();
      }
    }
  });
});
