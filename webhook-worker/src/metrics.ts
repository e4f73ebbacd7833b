/** Prometheus metrics of the webhook delivery worker (docs/product.md, Operations), on a registry of its own. */
import { Counter, Gauge, Histogram } from 'prom-client';
import { serviceMetrics } from '../../runtime/metrics';

export function createWebhookMetrics() {
  const { registry, dbQuery } = serviceMetrics('webhook');
  return {
    registry,
    dbQuery,
    deliveries: new Counter({
      name: 'webhook_deliveries_total',
      help:
        'Delivery messages handled, by outcome: delivered (2xx), retry (asked for redelivery later), dead_letter ' +
        '(retries exhausted, destination disabled or removed, undecodable), disabled (410: destination disabled), ' +
        'requeued (internal trouble or shutdown: redelivered soon, not a receiver failure)',
      labelNames: ['outcome'] as const,
      registers: [registry],
    }),
    attempts: new Counter({
      name: 'webhook_attempts_total',
      help: 'HTTP attempts by status class (2xx, 3xx, 4xx, 5xx, timeout, network_error, aborted)',
      labelNames: ['status'] as const,
      registers: [registry],
    }),
    duration: new Histogram({
      name: 'webhook_delivery_duration_seconds',
      help: 'Time of one HTTP attempt, from request to classified answer, by status class',
      labelNames: ['status'] as const,
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers: [registry],
    }),
    lag: new Histogram({
      name: 'webhook_delivery_lag_seconds',
      help: 'Time from enqueueing a delivery to its successful attempt (includes retries)',
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 60, 300, 3600, 86400],
      registers: [registry],
    }),
    inFlight: new Gauge({
      name: 'webhook_in_flight',
      help: 'Deliveries being attempted now by this worker',
      registers: [registry],
    }),
    adConversions: new Counter({
      name: 'ad_conversions_total',
      help:
        'Purchases handled for the ad platforms, by destination, kind (meta_capi, google_ads, tiktok_events) and ' +
        'outcome (delivered, retry, dead_letter, requeued)',
      labelNames: ['destination', 'kind', 'outcome'] as const,
      registers: [registry],
    }),
    adRequests: new Counter({
      name: 'ad_conversion_requests_total',
      help:
        'Requests to the ad platforms by destination, kind and verdict: answered (the platform judged each purchase), ' +
        'retry (rate limit, outage, network), refused (the request as a whole), auth (credential refused), failed',
      labelNames: ['destination', 'kind', 'verdict'] as const,
      registers: [registry],
    }),
    adRefused: new Counter({
      name: 'ad_conversion_refused_total',
      help: 'Purchases the platform refused inside an answered request (Google partial failures), by destination',
      labelNames: ['destination', 'kind'] as const,
      registers: [registry],
    }),
    adBatchSize: new Histogram({
      name: 'ad_conversion_batch_size',
      help: 'Purchases per request to an ad platform, by kind',
      labelNames: ['kind'] as const,
      buckets: [1, 2, 5, 10, 25, 50, 100, 250, 500, 1000, 2000],
      registers: [registry],
    }),
    consumerPending: new Gauge({
      name: 'webhook_consumer_pending',
      help:
        'Deliveries of a shared consumer (webhook-worker: identity events; ad-conversions: purchases for the ad ' +
        'platforms): pending = not yet handed to a worker, ack_pending = in flight or waiting for a retry',
      labelNames: ['consumer', 'state'] as const,
      registers: [registry],
    }),
  };
}

export type WebhookMetrics = ReturnType<typeof createWebhookMetrics>;
