/**
 * Shopify custom pixel (Settings > Customer events > Add custom pixel). Shopify runs it with a global
 * `analytics`; the merchant fills OA_SETTINGS at the top of the built file.
 */
import { forwardStandardEvents, type PixelAnalytics, type PixelSettings } from './forward';

declare const analytics: PixelAnalytics;
declare const OA_SETTINGS: PixelSettings;

forwardStandardEvents(analytics, OA_SETTINGS);
