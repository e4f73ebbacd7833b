/** `data_health`: get/data-health, whether the store's data is arriving and the views are current. */
import { z } from 'zod';
import type { DataHealth } from '../../../contracts/src/dashboard';
import { formatTable } from '../text-table';
import { defineTool } from './tool';

const output = z.object({
  now: z.string(),
  events_per_minute: z.array(z.object({ minute: z.string(), events: z.number() })),
  last_event_by_source: z.array(z.object({ source: z.string(), total: z.number(), last_at: z.string().nullable() })),
  order_capture: z.object({
    start_date: z.string(),
    end_date: z.string(),
    purchases: z.number(),
    tracked: z.number(),
    rate: z.number().nullable(),
  }),
  dead_letters: z.object({
    total: z.number(),
    last_24h: z.number(),
    last_at: z.string().nullable(),
    webhook_undelivered: z.number(),
  }),
  views_updated_at: z.string().nullable(),
  views_lag_seconds: z.number().nullable(),
  ad_connections: z.array(
    z.object({
      id: z.string(),
      kind: z.string(),
      account_id: z.string(),
      status: z.string(),
      error: z.string().nullable(),
      last_pull_at: z.string().nullable(),
      rows: z.number(),
      days: z.number(),
      first_day: z.string().nullable(),
      last_day: z.string().nullable(),
    }),
  ),
}) satisfies z.ZodType<DataHealth>;

export const dataHealth = defineTool({
  name: 'data_health',
  title: 'Data health',
  description:
    'Whether the store’s data is arriving and the reports are current (POST get/data-health): events stored per ' +
    'minute over the last hour, the latest data of each source (storefront events, orders, products, customers, ad ' +
    'spend), the share of the last 30 days’ orders the tracker saw complete, dead letters and undelivered ' +
    'webhooks, and when the views last took in an event. Use it before trusting a report, or when figures look low.',
  input: z.strictObject({}),
  output,
  async run(_args, { client }) {
    const health = await client.dataHealth();
    const lastHour = health.events_per_minute.reduce((sum, m) => sum + m.events, 0);
    const sources = formatTable(health.last_event_by_source, [
      { header: 'source', value: (r) => r.source },
      { header: 'rows', value: (r) => r.total, format: 'number' },
      { header: 'latest', value: (r) => r.last_at ?? 'never' },
    ]);
    const capture = health.order_capture;
    const lines = [
      `Events in the last hour: ${lastHour}.`,
      `Views updated at ${health.views_updated_at ?? 'never'}` +
        (health.views_lag_seconds === null ? '.' : ` (${health.views_lag_seconds} s after arrival).`),
      `Order capture ${capture.start_date} to ${capture.end_date}: ${capture.tracked} of ${capture.purchases} orders` +
        (capture.rate === null ? '.' : ` (${(capture.rate * 100).toFixed(1)} %).`),
      `Dead letters: ${health.dead_letters.total} (${health.dead_letters.last_24h} in the last 24 h); ` +
        `undelivered webhooks: ${health.dead_letters.webhook_undelivered}.`,
      ...health.ad_connections.map(
        (c) =>
          `Ad connection ${c.kind} ${c.account_id}: ${c.status}` +
          (c.error ? ` (${c.error})` : '') +
          `, last pull ${c.last_pull_at ?? 'never'}.`,
      ),
    ];
    return { structured: health, text: `${lines.join('\n')}\n${sources}` };
  },
});
