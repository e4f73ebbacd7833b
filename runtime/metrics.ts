/**
 * What every daemon's metrics share: a registry of its own with Node.js's default metrics, and the histogram of
 * its PostgreSQL queries by tag, which `connectDependencies` feeds (docs/operations.md, Metrics). Each daemon adds
 * its own metrics to the registry.
 */
import { collectDefaultMetrics, Histogram, Registry } from 'prom-client';

/** The metric name prefix of each daemon: `api_`, `pipeline_`, `webhook_`. */
export type ServicePrefix = 'api' | 'pipeline' | 'webhook';

export function serviceMetrics(prefix: ServicePrefix) {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const dbQuery = new Histogram({
    name: `${prefix}_db_query_duration_seconds`,
    help: 'PostgreSQL query time by tag',
    labelNames: ['tag', 'ok'] as const,
    buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 5],
    registers: [registry],
  });
  return { registry, dbQuery };
}
