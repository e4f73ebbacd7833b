import { adIdsOf, AD_ID_PARAMS, AD_SET_ID_PARAMS, CAMPAIGN_ID_PARAMS } from './ad-ids';
import { deriveTouchpoint } from './touchpoint';
import { parseLandingUrl } from './url-params';

const ids = (query: string) => adIdsOf(parseLandingUrl(`https://shop.example/p?${query}`)!.params);
const touch = (query: string) =>
  deriveTouchpoint({
    pageUrl: `https://shop.example/p?${query}`,
    referrer: '',
    ownHosts: [],
    resolveLink: () => undefined,
  });

describe('adIdsOf', () => {
  it('reads Meta-style parameters', () => {
    expect(ids('utm_source=facebook&utm_medium=paid&utm_id=120210&adset_id=1202101&ad_id=12021011')).toEqual({
      campaignId: '120210',
      adSetId: '1202101',
      adId: '12021011',
    });
  });

  it('reads Google ValueTrack parameters', () => {
    expect(ids('gclid=x&campaignid=20512345671&adgroupid=151234567801&creative=690123456701')).toEqual({
      campaignId: '20512345671',
      adSetId: '151234567801',
      adId: '690123456701',
    });
  });

  it('reads TikTok-style and Attribuly-style parameters', () => {
    expect(ids('campaign_id=179&ad_group_id=1790&ad_id=17901')).toEqual({
      campaignId: '179',
      adSetId: '1790',
      adId: '17901',
    });
    expect(ids('dm_net=facebook&dm_cam=c1&dm_grp=g1&dm_ad=a1')).toEqual({
      campaignId: 'c1',
      adSetId: 'g1',
      adId: 'a1',
    });
  });

  it('takes the first parameter present in the documented order, whatever the URL order', () => {
    expect(CAMPAIGN_ID_PARAMS).toEqual(['utm_id', 'campaign_id', 'campaignid', 'dm_cam']);
    expect(AD_SET_ID_PARAMS).toEqual(['adset_id', 'ad_group_id', 'adgroupid', 'dm_grp']);
    expect(AD_ID_PARAMS).toEqual(['ad_id', 'creative', 'dm_ad']);
    expect(ids('dm_cam=4&campaignid=3&campaign_id=2&utm_id=1')).toEqual({ campaignId: '1', adSetId: '', adId: '' });
    expect(ids('dm_grp=4&adgroupid=3&ad_group_id=2')).toMatchObject({ adSetId: '2' });
    expect(ids('dm_ad=3&creative=2')).toMatchObject({ adId: '2' });
  });

  it('keeps the case, trims, matches names case-insensitively and skips blank values', () => {
    expect(ids('UTM_ID=%20AbC-1%20&adset_id=&ad_group_id=G')).toEqual({ campaignId: 'AbC-1', adSetId: 'G', adId: '' });
  });

  it('skips placeholders the platform did not fill in', () => {
    expect(ids('utm_id=%7B%7Bcampaign.id%7D%7D&campaign_id=99&adgroupid=%7Badgroupid%7D&ad_id=__CID__')).toEqual({
      campaignId: '99',
      adSetId: '',
      adId: '',
    });
  });

  it('gives "" for every id when there is none', () => {
    expect(ids('utm_source=google')).toEqual({ campaignId: '', adSetId: '', adId: '' });
  });
});

describe('touchpoints carry the ad ids', () => {
  it('of a paid touch and of any other origin, cut at 128 characters', () => {
    expect(touch('utm_source=google&utm_medium=cpc&campaignid=7&adgroupid=8&creative=9')).toMatchObject({
      platform: 'google',
      campaignId: '7',
      adSetId: '8',
      adId: '9',
    });
    expect(touch('utm_source=klaviyo&utm_medium=email&utm_id=news-12')).toMatchObject({
      platform: '',
      campaignId: 'news-12',
    });
    expect(touch(`ad_id=${'x'.repeat(600)}`).adId).toHaveLength(128);
    // A surrogate pair across the cut is dropped whole.
    expect(touch(`ad_id=${'x'.repeat(127)}${encodeURIComponent('😀')}`).adId).toBe('x'.repeat(127));
  });
});
