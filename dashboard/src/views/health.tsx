/** Data health (get/data-health): events per minute, last data per source, order capture rate, dead letters. */
import { Chart } from '../components/chart';
import { Kpi, Show, Table } from '../components/parts';
import { useData } from '../components/use-data';
import { fmtCount, fmtPercent } from '../format';
import { useApp } from '../state';
import type { DataHealth } from '../types';

const toEpoch = (minute: string): number => Date.parse(`${minute.replace(' ', 'T')}:00Z`) / 1000;

export function Health() {
  const { client } = useApp();
  const health = useData(() => client.post<DataHealth>('get/data-health'), [client]);
  return (
    <section>
      <h1>Data health</h1>
      <Show data={health}>
        {(h) => (
          <>
            <p class="basis" data-testid="basis">
              as of {h.now} (store time) · views updated {h.views_updated_at ?? 'never'}
              {h.views_lag_seconds != null ? `, ${h.views_lag_seconds} s after the event arrived` : ''}
            </p>
            <div class="kpis">
              <Kpi
                testid="capture-rate"
                label={`Order capture rate (${h.order_capture.start_date} to ${h.order_capture.end_date})`}
                value={fmtPercent(h.order_capture.rate)}
                change={`${h.order_capture.tracked} of ${h.order_capture.purchases} orders tracked`}
              />
              <Kpi
                testid="dead-letters"
                label="Dead letters"
                value={fmtCount(h.dead_letters.total)}
                change={`${h.dead_letters.last_24h} in the last 24 h · ${h.dead_letters.webhook_undelivered} undelivered webhooks`}
              />
              <Kpi
                label="Events, last 60 minutes"
                value={fmtCount(h.events_per_minute.reduce((s, m) => s + m.events, 0))}
              />
            </div>
            <Chart
              testid="events-chart"
              title="Events stored per minute"
              height={180}
              x={h.events_per_minute.map((m) => toEpoch(m.minute))}
              series={[
                { label: 'Events', values: h.events_per_minute.map((m) => m.events), color: '#059669', bars: true },
              ]}
            />
            <h2>Last data per source</h2>
            <Table
              testid="sources-table"
              columns={[
                { label: 'Source', value: (s) => s.source.replace('_', ' ') },
                { label: 'Rows', value: (s) => fmtCount(s.total), numeric: true },
                { label: 'Latest', value: (s) => s.last_at ?? 'none yet' },
              ]}
              rows={h.last_event_by_source}
            />
          </>
        )}
      </Show>
    </section>
  );
}
