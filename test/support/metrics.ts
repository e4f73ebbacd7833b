/** Reading an in-process daemon's own Prometheus metrics in a test. */
import type { Metric } from 'prom-client';

/** The value of a counter or gauge for these labels (0 before its first increment). */
export async function metricValue(metric: Metric, labels: Record<string, string> = {}): Promise<number> {
  const { values } = await metric.get();
  const value = values.find((v) => Object.entries(labels).every(([k, l]) => v.labels[k] === l));
  return value?.value ?? 0;
}
