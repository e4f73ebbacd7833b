/**
 * Where the ad platforms' APIs are and which versions are pinned, for both daemons that call them: the pipeline's
 * spend pull and the webhook worker's conversion uploads. One definition, so that a version is bumped for both at
 * once. Configuration (`META_GRAPH_URL`, `META_API_VERSION`, ...; docs/operations.md): tests point the URLs at a
 * local fake server.
 */
export interface AdPlatformEndpoints {
  metaGraphUrl: string;
  metaApiVersion: string;
  googleAdsApiUrl: string;
  googleAdsApiVersion: string;
  googleOauthTokenUrl: string;
  tiktokApiUrl: string;
}

export const DEFAULT_AD_PLATFORM_ENDPOINTS: AdPlatformEndpoints = {
  metaGraphUrl: 'https://graph.facebook.com',
  metaApiVersion: 'v21.0',
  googleAdsApiUrl: 'https://googleads.googleapis.com',
  googleAdsApiVersion: 'v18',
  googleOauthTokenUrl: 'https://oauth2.googleapis.com/token',
  tiktokApiUrl: 'https://business-api.tiktok.com',
};
