/** Prometheus metrics of the query API, on a registry of its own. */
import { Counter, Gauge, Histogram } from 'prom-client';
import { serviceMetrics } from '../../../runtime/metrics';

export function createApiMetrics() {
  const { registry, dbQuery } = serviceMetrics('api');
  /** Counted at each scrape; the services set the count once they exist. */
  const overflowing = { count: (): number => 0 };
  return {
    registry,
    dbQuery,
    overflowing,
    httpDuration: new Histogram({
      name: 'http_request_duration_seconds',
      help: 'HTTP request latency by route and status',
      labelNames: ['method', 'route', 'status'] as const,
      buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
      registers: [registry],
    }),
    eventsReceived: new Counter({
      name: 'api_events_received_total',
      help: 'Events and store pushes received by the ingestion routes, by result (accepted, duplicate, rejected)',
      labelNames: ['kind', 'result'] as const,
      registers: [registry],
    }),
    eventsOverflowed: new Counter({
      name: 'api_events_overflowed_total',
      help: 'Accepted events and pushes published to the overflow partitions: their store was over its live rate',
      labelNames: ['kind'] as const,
      registers: [registry],
    }),
    requestsPaced: new Counter({
      name: 'api_paced_requests_total',
      help: 'Requests of a store held to its paced rate while other stores send (held), or refused with 429 (refused)',
      labelNames: ['result'] as const,
      registers: [registry],
    }),
    storesOverflowing: new Gauge({
      name: 'api_stores_overflowing',
      help: 'Stores whose events this API instance now publishes to the overflow partitions',
      registers: [registry],
      collect() {
        this.set(overflowing.count());
      },
    }),
    dataQualityWarnings: new Counter({
      name: 'api_data_quality_warnings_total',
      help: 'Accepted events that lacked a field the spec marks required but real producers omit',
      labelNames: ['field'] as const,
      registers: [registry],
    }),
    credentialCacheHits: new Counter({
      name: 'api_credential_cache_hits_total',
      help: 'Credentials trusted from memory, without a lookup (verified recently, no change announced since)',
      registers: [registry],
    }),
    credentialChangesHeard: new Counter({
      name: 'api_credential_changes_heard_total',
      help: 'Credential and store changes the database announced to the API (each makes every cached credential stale)',
      registers: [registry],
    }),
    credentialChangesListening: new Gauge({
      name: 'api_credential_changes_listening',
      help: '1 while the API hears the database announce credential and store changes (and so may trust its cache)',
      registers: [registry],
    }),
  };
}

export type ApiMetrics = ReturnType<typeof createApiMetrics>;
