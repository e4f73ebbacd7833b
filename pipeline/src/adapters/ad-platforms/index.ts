/** The client of each ad platform behind the one AdPlatformClient interface. */
import type { HttpOptions } from './http';
import { GoogleAdsClient } from './google-ads';
import { MetaInsightsClient } from './meta';
import { TiktokReportClient } from './tiktok';
import type { AdPlatformClient, AdPlatformConfig, AdPlatformKind } from './types';

export type AdPlatformClients = Record<AdPlatformKind, AdPlatformClient>;

export function adPlatformClients(config: AdPlatformConfig, http: HttpOptions = {}): AdPlatformClients {
  return {
    meta: new MetaInsightsClient(config, http),
    google: new GoogleAdsClient(config, http),
    tiktok: new TiktokReportClient(config, http),
  };
}
