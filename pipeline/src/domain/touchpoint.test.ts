import fc from 'fast-check';
import { CHANNELS, PLATFORMS } from '../../../contracts/src/channels';
import { CLICK_IDS, deriveTouchpoint, landingSignal, sameSource, type TouchpointInput } from './touchpoint';
import type { Touchpoint, TouchpointDims, TrackingLinkInfo } from './touchpoint-types';

const STORE = 'https://shop.example.com';
const OWN_HOSTS = ['shop.example.com'];
const LINKS: ReadonlyMap<string, TrackingLinkInfo> = new Map([
  ['Ab12', { campaign: ' Summer Drop ', source: 'Instagram', medium: 'Influencer' }],
  ['blank', { campaign: ' ', source: 'Partner', medium: '' }],
]);

function input(pageUrl: string, referrer = '', overrides: Partial<TouchpointInput> = {}): TouchpointInput {
  return { pageUrl, referrer, ownHosts: OWN_HOSTS, resolveLink: (code) => LINKS.get(code), ...overrides };
}

describe('deriveTouchpoint', () => {
  it.each<[string, string, string, Partial<Touchpoint>]>([
    // 2. UTMs
    [
      'plain utm',
      `${STORE}/p?utm_source=Newsletter&utm_medium=Email&utm_campaign=Spring%20Sale`,
      '',
      { origin: 'utm', source: 'newsletter', medium: 'email', campaign: 'spring sale', channel: 'email', platform: '' },
    ],
    [
      'uppercase keys and values',
      `${STORE}/?UTM_SOURCE=Google&UTM_MEDIUM=CPC&UTM_CAMPAIGN=Brand`,
      '',
      { origin: 'utm', source: 'google', medium: 'cpc', campaign: 'brand', channel: 'paid_search', platform: 'google' },
    ],
    [
      'whitespace around values, blank campaign',
      `${STORE}/?utm_source=%20Facebook%20&utm_medium=+paid+&utm_campaign=%20%20`,
      '',
      { origin: 'utm', source: 'facebook', medium: 'paid', campaign: '(not set)', channel: 'paid_social' },
    ],
    [
      'utm_medium only',
      `${STORE}/?utm_medium=email`,
      '',
      { origin: 'utm', source: '(not set)', medium: 'email', campaign: '(not set)', channel: 'email' },
    ],
    [
      'utm_source only',
      `${STORE}/?utm_source=newsletter`,
      '',
      { origin: 'utm', source: 'newsletter', medium: '(not set)', campaign: '(not set)', channel: 'unassigned' },
    ],
    [
      'gclid + utm: utm wins, platform follows the click id',
      `${STORE}/?utm_source=newsletter&utm_medium=email&gclid=abc`,
      '',
      {
        origin: 'utm',
        source: 'newsletter',
        medium: 'email',
        channel: 'email',
        platform: 'google',
        clickIdParam: 'gclid',
      },
    ],
    [
      'Brand Shopping campaign',
      `${STORE}/?utm_source=google&utm_medium=cpc&utm_campaign=Brand Shopping`,
      '',
      { origin: 'utm', campaign: 'brand shopping', channel: 'paid_shopping', platform: 'google' },
    ],
    [
      'cross-network campaign',
      `${STORE}/?utm_source=google&utm_medium=cpc&utm_campaign=PMax%20Cross-Network`,
      '',
      { origin: 'utm', campaign: 'pmax cross-network', channel: 'cross_network', platform: 'google' },
    ],
    [
      'sms',
      `${STORE}/?utm_source=attentive&utm_medium=SMS&utm_campaign=flash`,
      '',
      { source: 'attentive', medium: 'sms', channel: 'sms', platform: '' },
    ],
    [
      'affiliate',
      `${STORE}/?utm_source=impact&utm_medium=affiliate`,
      '',
      { source: 'impact', medium: 'affiliate', channel: 'affiliates', platform: '' },
    ],
    [
      'display (banner)',
      `${STORE}/?utm_source=criteo&utm_medium=banner`,
      '',
      { source: 'criteo', medium: 'banner', channel: 'display', platform: '' },
    ],
    [
      'paid facebook utm without click id',
      `${STORE}/?utm_source=fb&utm_medium=paid&utm_campaign=retarget`,
      '',
      { source: 'fb', medium: 'paid', channel: 'paid_social', platform: 'facebook', clickIdParam: '' },
    ],
    [
      'utm beats the referrer',
      `${STORE}/?utm_source=newsletter&utm_medium=email`,
      'https://www.google.com/',
      { origin: 'utm', source: 'newsletter', medium: 'email' },
    ],
    [
      'blank utm_source/utm_medium count as absent',
      `${STORE}/?utm_source=%20&utm_medium=&gclid=abc`,
      '',
      { origin: 'click_id', source: 'google', medium: 'cpc' },
    ],
    // 3. click ids
    [
      'fbclid without utm',
      `${STORE}/?fbclid=IwAR0abc`,
      '',
      {
        origin: 'click_id',
        source: 'facebook',
        medium: 'social',
        campaign: '(not set)',
        channel: 'organic_social',
        platform: 'facebook',
        clickIdParam: 'fbclid',
      },
    ],
    [
      'gclid',
      `${STORE}/?gclid=Cj0abc`,
      '',
      {
        origin: 'click_id',
        source: 'google',
        medium: 'cpc',
        campaign: '(not set)',
        channel: 'paid_search',
        platform: 'google',
        clickIdParam: 'gclid',
      },
    ],
    [
      'wbraid',
      `${STORE}/?wbraid=x`,
      '',
      { source: 'google', medium: 'cpc', channel: 'paid_search', platform: 'google' },
    ],
    ['msclkid', `${STORE}/?msclkid=x`, '', { source: 'bing', medium: 'cpc', channel: 'paid_search', platform: 'bing' }],
    [
      'ttclid',
      `${STORE}/?ttclid=x`,
      '',
      { source: 'tiktok', medium: 'cpc', channel: 'paid_social', platform: 'tiktok' },
    ],
    [
      'li_fat_id',
      `${STORE}/?li_fat_id=x`,
      '',
      { source: 'linkedin', medium: 'cpc', channel: 'paid_social', platform: 'linkedin' },
    ],
    [
      'twclid',
      `${STORE}/?twclid=x`,
      '',
      { source: 'twitter', medium: 'cpc', channel: 'paid_social', platform: 'twitter' },
    ],
    [
      'epik',
      `${STORE}/?epik=x`,
      '',
      { source: 'pinterest', medium: 'cpc', channel: 'paid_social', platform: 'pinterest' },
    ],
    [
      'ScCid',
      `${STORE}/?ScCid=x`,
      '',
      { source: 'snapchat', medium: 'cpc', channel: 'paid_social', platform: 'snapchat', clickIdParam: 'ScCid' },
    ],
    [
      'uppercase GCLID',
      `${STORE}/?GCLID=x`,
      '',
      { origin: 'click_id', source: 'google', platform: 'google', clickIdParam: 'gclid' },
    ],
    [
      'click ids in precedence order, not URL order',
      `${STORE}/?fbclid=a&ttclid=b&gclid=c`,
      '',
      { source: 'google', medium: 'cpc', clickIdParam: 'gclid' },
    ],
    ['blank click id is ignored', `${STORE}/?gclid=&fbclid=x`, '', { source: 'facebook', clickIdParam: 'fbclid' }],
    [
      'click id beats the referrer',
      `${STORE}/?fbclid=x`,
      'https://l.facebook.com/l.php',
      { origin: 'click_id', source: 'facebook', medium: 'social', campaign: '(not set)' },
    ],
    // 4. referrer
    [
      'google.co.uk',
      `${STORE}/`,
      'https://www.google.co.uk/',
      { origin: 'search', source: 'google', medium: 'organic', campaign: '(organic)', channel: 'organic_search' },
    ],
    [
      'l.facebook.com',
      `${STORE}/`,
      'https://l.facebook.com/l.php?u=x',
      { origin: 'social', source: 'facebook', medium: 'social', campaign: '(referral)', channel: 'organic_social' },
    ],
    [
      't.co',
      `${STORE}/`,
      'https://t.co/xyz',
      { origin: 'social', source: 'twitter', medium: 'social', campaign: '(referral)', channel: 'organic_social' },
    ],
    [
      'blog referral',
      `${STORE}/blog-post`,
      'https://www.someblog.com/2024/best-hats',
      {
        origin: 'referral',
        source: 'someblog.com',
        medium: 'referral',
        campaign: '(referral)',
        channel: 'referral',
        platform: '',
      },
    ],
    [
      'referral from a shopping site',
      `${STORE}/`,
      'https://www.amazon.com/',
      { origin: 'referral', source: 'amazon.com', medium: 'referral', channel: 'organic_shopping' },
    ],
    [
      'utm_campaign alone keeps the referrer source (campaign is utm_campaign when present)',
      `${STORE}/?utm_campaign=Spring`,
      'https://www.google.com/',
      { origin: 'search', source: 'google', medium: 'organic', campaign: 'spring', channel: 'organic_search' },
    ],
    // 5. direct
    [
      'self-referral from the store host',
      `${STORE}/cart`,
      'https://shop.example.com/products/hat',
      { origin: 'direct', source: '(direct)', medium: '(none)', campaign: '(direct)', channel: 'direct' },
    ],
    [
      'self-referral from the www. store host',
      `${STORE}/cart`,
      'https://www.shop.example.com/products/hat',
      { origin: 'direct', source: '(direct)', medium: '(none)', campaign: '(direct)', channel: 'direct' },
    ],
    [
      'referral from the landing host itself, even when ownHosts misses it',
      'https://store.myshopify.com/cart',
      'https://store.myshopify.com/',
      { origin: 'direct', source: '(direct)' },
    ],
    [
      'empty referrer',
      `${STORE}/`,
      '',
      { origin: 'direct', source: '(direct)', medium: '(none)', campaign: '(direct)', channel: 'direct', platform: '' },
    ],
    ['unparsable referrer', `${STORE}/`, 'not a url', { origin: 'direct', source: '(direct)' }],
    [
      'unparsable URL',
      'not a url ?utm_source=google',
      '',
      { origin: 'direct', source: '(direct)', medium: '(none)', campaign: '(direct)', landingPage: '/' },
    ],
    ['relative URL', '/products/hat?utm_source=google&utm_medium=cpc', '', { origin: 'direct', landingPage: '/' }],
    [
      'unparsable URL still uses the referrer',
      '',
      'https://www.bing.com/',
      { origin: 'search', source: 'bing', landingPage: '/' },
    ],
    // 1. tracking links
    [
      'resolved ab_lnk beats utm and click ids',
      `${STORE}/drop?ab_lnk=Ab12&utm_source=other&utm_medium=email&utm_campaign=other&gclid=x`,
      'https://www.google.com/',
      {
        origin: 'link',
        source: 'instagram',
        medium: 'influencer',
        campaign: 'summer drop',
        linkCode: 'Ab12',
        clickIdParam: 'gclid',
        platform: 'google',
      },
    ],
    [
      'resolved ab_lnk with blank link fields',
      `${STORE}/?ab_lnk=blank`,
      '',
      { origin: 'link', source: 'partner', medium: '(not set)', campaign: '(not set)', linkCode: 'blank' },
    ],
    [
      'unresolved ab_lnk falls through to utm',
      `${STORE}/?ab_lnk=nope&utm_source=newsletter&utm_medium=email`,
      '',
      { origin: 'utm', source: 'newsletter', medium: 'email', linkCode: '' },
    ],
    [
      'unresolved ab_lnk falls through to the referrer',
      `${STORE}/?ab_lnk=nope`,
      'https://www.someblog.com/',
      { origin: 'referral', source: 'someblog.com', linkCode: '' },
    ],
    ['unresolved ab_lnk alone is direct', `${STORE}/?ab_lnk=nope`, '', { origin: 'direct', linkCode: '' }],
    ['ab_lnk codes are case-sensitive', `${STORE}/?ab_lnk=ab12`, '', { origin: 'direct', linkCode: '' }],
  ])('%s', (_name, pageUrl, referrer, expected) => {
    expect(deriveTouchpoint(input(pageUrl, referrer))).toMatchObject(expected);
  });

  it('returns the full touchpoint shape', () => {
    const tp = deriveTouchpoint(
      input(
        `${STORE}/collections/Hats/?utm_source=Google&utm_medium=cpc&utm_campaign=Brand&utm_content=Ad%20A&utm_term=Red+Hat&utm_id=123#reviews`,
      ),
    );
    expect(tp).toEqual<Touchpoint>({
      origin: 'utm',
      channel: 'paid_search',
      source: 'google',
      medium: 'cpc',
      campaign: 'brand',
      landingPage: '/collections/Hats/',
      platform: 'google',
      content: 'Ad A',
      term: 'Red Hat',
      utmId: '123',
      linkCode: '',
      clickIdParam: '',
      campaignId: '123',
      adSetId: '',
      adId: '',
    });
  });

  it('defaults content/term/utmId, linkCode, clickIdParam and the ad ids to ""', () => {
    expect(deriveTouchpoint(input(`${STORE}/`))).toEqual<Touchpoint>({
      origin: 'direct',
      channel: 'direct',
      source: '(direct)',
      medium: '(none)',
      campaign: '(direct)',
      landingPage: '/',
      platform: '',
      content: '',
      term: '',
      utmId: '',
      linkCode: '',
      clickIdParam: '',
      campaignId: '',
      adSetId: '',
      adId: '',
    });
  });

  it('asks resolveLink with the trimmed code, once', () => {
    const resolveLink = jest.fn((code: string) => LINKS.get(code));
    deriveTouchpoint(input(`${STORE}/?ab_lnk=%20Ab12%20`, '', { resolveLink }));
    expect(resolveLink.mock.calls).toEqual([['Ab12']]);
  });

  it('does not call resolveLink without ab_lnk', () => {
    const resolveLink = jest.fn((code: string) => LINKS.get(code));
    deriveTouchpoint(input(`${STORE}/?utm_source=x`, '', { resolveLink }));
    expect(resolveLink).not.toHaveBeenCalled();
  });

  it('uses the click ids of docs/product.md, Sessions and touchpoints in its order', () => {
    expect(CLICK_IDS.map((c) => c.param)).toEqual([
      'gclid',
      'gbraid',
      'wbraid',
      'msclkid',
      'ttclid',
      'li_fat_id',
      'twclid',
      'epik',
      'ScCid',
      'fbclid',
    ]);
  });
});

describe('landingSignal', () => {
  it.each([
    ['utm', `${STORE}/?utm_source=newsletter&utm_medium=email`, '', 'utm'],
    ['click id', `${STORE}/?gclid=x`, '', 'click_id'],
    ['link', `${STORE}/?ab_lnk=Ab12`, '', 'link'],
    ['search', `${STORE}/`, 'https://www.google.com/', 'search'],
    ['social', `${STORE}/`, 'https://t.co/x', 'social'],
    ['referral', `${STORE}/`, 'https://someblog.com/', 'referral'],
  ])('returns the touchpoint for %s', (_name, pageUrl, referrer, origin) => {
    expect(landingSignal(input(pageUrl, referrer))?.origin).toBe(origin);
  });

  it.each([
    ['no signal', `${STORE}/products/hat`, ''],
    ['self-referral', `${STORE}/products/hat`, 'https://shop.example.com/'],
    ['www self-referral', `${STORE}/products/hat`, 'https://www.shop.example.com/collections'],
    ['unresolved link', `${STORE}/?ab_lnk=nope`, ''],
    ['unparsable URL', '::', ''],
  ])('returns null for %s', (_name, pageUrl, referrer) => {
    expect(landingSignal(input(pageUrl, referrer))).toBeNull();
  });

  it('equals deriveTouchpoint when non-null', () => {
    const i = input(`${STORE}/?utm_source=a&utm_medium=b`);
    expect(landingSignal(i)).toEqual(deriveTouchpoint(i));
  });
});

describe('sameSource', () => {
  const base: TouchpointDims = {
    channel: 'paid_search',
    source: 'google',
    medium: 'cpc',
    campaign: 'brand',
    landingPage: '/',
    platform: 'google',
  };

  it.each<[string, Partial<TouchpointDims>, boolean]>([
    ['identical', {}, true],
    ['other landing page', { landingPage: '/cart' }, true],
    ['other channel/platform only', { channel: 'paid_shopping', platform: '' }, true],
    ['other source', { source: 'bing' }, false],
    ['other medium', { medium: 'organic' }, false],
    ['other campaign', { campaign: 'generic' }, false],
  ])('%s → %s', (_name, change, expected) => {
    expect(sameSource(base, { ...base, ...change })).toBe(expected);
    expect(sameSource({ ...base, ...change }, base)).toBe(expected);
  });

  it('sees the same link click twice as the same source', () => {
    const url = `${STORE}/?utm_source=newsletter&utm_medium=email&utm_campaign=spring`;
    const first = deriveTouchpoint(input(url));
    const again = landingSignal(input(`${url}&utm_content=footer`));
    expect(again).not.toBeNull();
    expect(sameSource(first, again!)).toBe(true);
  });
});

describe('deriveTouchpoint properties', () => {
  const param = fc.constantFrom(
    'utm_source',
    'UTM_MEDIUM',
    'utm_campaign',
    'gclid',
    'fbclid',
    'ab_lnk',
    'utm_content',
    'x',
  );
  const value = fc.string({ maxLength: 12 });
  const query = fc
    .array(fc.tuple(param, value), { maxLength: 5 })
    .map((pairs) => pairs.map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join('&'));
  const pageUrl = fc.oneof(
    query.map((q) => `${STORE}/p?${q}`),
    fc.string(),
  );
  const referrer = fc.oneof(
    fc.constantFrom('', 'https://www.google.de/', 'https://shop.example.com/', 'https://blog.example.org/'),
    fc.webUrl(),
    fc.string(),
  );

  it('never throws and always yields normalised, non-empty dimensions', () => {
    fc.assert(
      fc.property(pageUrl, referrer, (url, ref) => {
        const tp = deriveTouchpoint(input(url, ref));
        for (const v of [tp.source, tp.medium, tp.campaign]) {
          expect(v).not.toBe('');
          expect(v).toBe(v.trim().toLowerCase());
        }
        expect(CHANNELS).toContain(tp.channel);
        expect(['', ...PLATFORMS]).toContain(tp.platform);
        expect(tp.landingPage.startsWith('/')).toBe(true);
        expect(landingSignal(input(url, ref)) === null).toBe(tp.origin === 'direct');
      }),
    );
  });
});
