/**
 * The events recorded from real Shopify Web Pixels (test/fixtures/shopify-pixel, see its README), loaded for
 * unit and integration tests: one JSON file per event kind and producer, exactly as the producer sent it.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export const PIXEL_FIXTURES_DIR = join(__dirname, '..', 'fixtures', 'shopify-pixel');

/** Producers with a recorded checkout journey, and one with a single recorded `checkout_completed`. */
export const PIXEL_PRODUCERS = ['valmi-app-pixel', 'customerlabs-custom-pixel', 'cake-shop-pixel'] as const;
export type PixelProducer = (typeof PIXEL_PRODUCERS)[number];

export interface PixelRecording {
  producer: PixelProducer;
  /** The event kind, as in the file name and the event's `name`. */
  name: string;
  /** The event as recorded (a fresh copy on every load). */
  event: Record<string, unknown>;
}

/** The recordings of one producer, in the order they happened (timestamp, then name). */
export function loadPixelRecordings(producer: PixelProducer): PixelRecording[] {
  const dir = join(PIXEL_FIXTURES_DIR, producer);
  return readdirSync(dir)
    .filter((file) => file.endsWith('.json'))
    .map((file) => ({
      producer,
      name: file.replace(/\.json$/, ''),
      event: JSON.parse(readFileSync(join(dir, file), 'utf8')) as Record<string, unknown>,
    }))
    .sort(
      (a, b) =>
        Date.parse(String(a.event['timestamp'])) - Date.parse(String(b.event['timestamp'])) ||
        a.name.localeCompare(b.name),
    );
}

/** Every recording of every producer. */
export function loadAllPixelRecordings(): PixelRecording[] {
  return PIXEL_PRODUCERS.flatMap(loadPixelRecordings);
}

/**
 * The events with their timestamps moved by one offset so that the latest is `latestAt` (epoch ms): recordings
 * are years old, reports and lookback windows want recent times. Relative order and gaps are kept.
 */
export function shiftedToRecent(events: Record<string, unknown>[], latestAt: number): Record<string, unknown>[] {
  const times = events.map((e) => Date.parse(String(e['timestamp'])));
  const offset = latestAt - Math.max(...times);
  return events.map((e, i) => ({ ...e, timestamp: new Date(times[i]! + offset).toISOString() }));
}
