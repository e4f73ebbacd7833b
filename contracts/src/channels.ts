/** Default channel group slugs (GA4 rules, docs/product.md, Sessions and touchpoints), in the order the rules are evaluated. */
export const CHANNELS = [
  'direct',
  'cross_network',
  'paid_shopping',
  'paid_search',
  'paid_social',
  'paid_video',
  'display',
  'paid_other',
  'organic_shopping',
  'organic_social',
  'organic_video',
  'organic_search',
  'referral',
  'email',
  'affiliates',
  'audio',
  'sms',
  'mobile_push',
  'unassigned',
] as const;
export type Channel = (typeof CHANNELS)[number];

/**
 * The names a store owner knows for the channel groups: GA4's default channel group names. The API answers
 * slugs (stable, filterable); screens show these.
 */
export const CHANNEL_NAMES: Readonly<Record<Channel, string>> = {
  direct: 'Direct',
  cross_network: 'Cross-network',
  paid_shopping: 'Paid Shopping',
  paid_search: 'Paid Search',
  paid_social: 'Paid Social',
  paid_video: 'Paid Video',
  display: 'Display',
  paid_other: 'Paid Other',
  organic_shopping: 'Organic Shopping',
  organic_social: 'Organic Social',
  organic_video: 'Organic Video',
  organic_search: 'Organic Search',
  referral: 'Referral',
  email: 'Email',
  affiliates: 'Affiliates',
  audio: 'Audio',
  sms: 'SMS',
  mobile_push: 'Mobile Push Notifications',
  unassigned: 'Unassigned',
};

/** A channel slug's display name; `""` is "(none)", and a slug this build does not know is shown as it is. */
export function channelName(slug: string): string {
  if (slug === '') return '(none)';
  return Object.prototype.hasOwnProperty.call(CHANNEL_NAMES, slug) ? CHANNEL_NAMES[slug as Channel] : slug;
}

/** Ad platforms a touchpoint can be attributed to (docs/product.md, Sessions and touchpoints); `""` when none. */
export const PLATFORMS = [
  'google',
  'facebook',
  'tiktok',
  'bing',
  'pinterest',
  'snapchat',
  'linkedin',
  'twitter',
] as const;
export type Platform = (typeof PLATFORMS)[number] | '';
