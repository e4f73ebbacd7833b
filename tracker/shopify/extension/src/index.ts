/**
 * Shopify Web Pixel app extension: Shopify passes the merchant's settings (`ingestKey`, `endpoint`, declared
 * in shopify.extension.toml) and loads the pixel only with analytics consent.
 */
import { register } from '@shopify/web-pixels-extension';
import { forwardStandardEvents } from '../../forward';

register(({ analytics, settings }) => {
  forwardStandardEvents(analytics, { ingestKey: settings.ingestKey ?? '', endpoint: settings.endpoint ?? '' });
});
