import { CHANNELS, CHANNEL_NAMES, channelName } from './channels';

describe('channel names', () => {
  it('names every channel group as GA4 does', () => {
    expect(channelName('paid_social')).toBe('Paid Social');
    expect(channelName('organic_search')).toBe('Organic Search');
    expect(channelName('cross_network')).toBe('Cross-network');
    expect(channelName('mobile_push')).toBe('Mobile Push Notifications');
    expect(channelName('sms')).toBe('SMS');
    // Every slug has a name of its own, and none is left as a slug.
    const names = CHANNELS.map((c) => CHANNEL_NAMES[c]);
    expect(new Set(names).size).toBe(CHANNELS.length);
    for (const c of CHANNELS) expect(channelName(c)).not.toMatch(/_/);
  });

  it('shows an empty channel as (none), and a slug it does not know as it is', () => {
    expect(channelName('')).toBe('(none)');
    expect(channelName('podcast_ads')).toBe('podcast_ads');
    expect(channelName('toString')).toBe('toString');
  });
});
