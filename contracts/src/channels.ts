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
