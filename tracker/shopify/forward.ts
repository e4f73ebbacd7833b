/**
 * The one source of both Shopify pixels (the custom pixel pasted in the admin and the Web Pixel app
 * extension): subscribe to every standard event and forward it unchanged to `/collect/<ingest key>`.
 * Shopify supplies clientId, id, seq, timestamp and context; the service fills the client IP.
 */
import { Sender } from '../src/transport';

export interface PixelSettings {
  /** The store's ingest key. */
  ingestKey: string;
  /** Base URL of the service, e.g. https://attribution.example.com */
  endpoint: string;
}

/** The part of Shopify's `analytics` API the pixel uses. */
export interface PixelAnalytics {
  subscribe(name: string, callback: (event: { id: string }) => void): unknown;
}

export function collectUrl(settings: PixelSettings): string {
  return `${settings.endpoint.replace(/\/+$/, '')}/collect/${encodeURIComponent(settings.ingestKey)}`;
}

/**
 * Starts forwarding. Pixels have no page storage (app pixels run in a web worker), so events are retried in
 * memory and each request may outlive the page (keepalive, whose bodies browsers cap at 64 KiB: hence small
 * batches): checkout pages close quickly.
 */
export function forwardStandardEvents(analytics: PixelAnalytics, settings: PixelSettings): void {
  if (!settings || !settings.ingestKey || !settings.endpoint) return;
  const sender = new Sender<{ id: string }>({ url: collectUrl(settings), maxBatch: 5, flushMs: 250, keepalive: true });
  analytics.subscribe('all_standard_events', (event) => {
    try {
      sender.add(event);
    } catch {
      // Never into the storefront.
    }
  });
}
