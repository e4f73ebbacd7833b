/**
 * Overview: the period's revenue, orders, ad spend, ROAS, new-customer conversions and net profit against the
 * previous period of the same length (get-list-sum twice), and the daily chart of spend against attributed
 * revenue (get/daily-summary).
 */
import { Chart } from '../components/chart';
import { Basis, Kpi, Show } from '../components/parts';
import { useData } from '../components/use-data';
import { change, daysBetween, fmtChange, fmtCount, fmtMoney, fmtRatio } from '../format';
import { previousRange, useApp } from '../state';
import type { DailyRecord, Summary } from '../types';

/** The daily summary covers at most this many days: the chart shows the last ones of a longer range. */
const CHART_DAYS = 92;

const KPIS: Array<{ key: keyof Summary; label: string; fmt: (x: number) => string }> = [
  { key: 'conversion_value', label: 'Attributed revenue', fmt: fmtMoney },
  { key: 'conversions', label: 'Conversions', fmt: fmtCount },
  { key: 'spend', label: 'Ad spend', fmt: fmtMoney },
  { key: 'roas', label: 'ROAS', fmt: fmtRatio },
  { key: 'new_lead_conversions', label: 'New-customer conversions', fmt: fmtCount },
  { key: 'net_profit', label: 'Net profit', fmt: fmtMoney },
];

export function Overview() {
  const { client, selection } = useApp();
  const { range, model, goal } = selection;
  const sums = useData(async () => {
    const body = { dimensions: ['channel'], model, goal };
    const prev = previousRange(range);
    const [now, before] = await Promise.all([
      client.post<Summary>('all-attribution/get-list-sum', { ...body, start_date: range.start, end_date: range.end }),
      client.post<Summary>('all-attribution/get-list-sum', { ...body, start_date: prev.start, end_date: prev.end }),
    ]);
    return { now, before };
  }, [client, range.start, range.end, model, goal]);
  const daily = useData(async () => {
    const days = daysBetween(range.start, range.end);
    const start =
      days > CHART_DAYS
        ? new Date(Date.parse(range.end) - CHART_DAYS * 86_400_000).toISOString().slice(0, 10)
        : range.start;
    return client.post<{ records: DailyRecord[] }>('get/daily-summary', {
      start_date: start,
      end_date: range.end,
      model,
      goal,
    });
  }, [client, range.start, range.end, model, goal]);

  return (
    <section>
      <h1>Overview</h1>
      <Basis note="change against the previous period of the same length" />
      <Show data={sums}>
        {({ now, before }) => (
          <div class="kpis">
            {KPIS.map((k) => (
              <Kpi
                testid={`kpi-${k.key}`}
                label={k.label}
                value={k.fmt(now[k.key])}
                change={fmtChange(change(now[k.key], before[k.key]))}
              />
            ))}
          </div>
        )}
      </Show>
      <Show data={daily} empty={(d) => d.records.length === 0}>
        {(d) => (
          <Chart
            testid="daily-chart"
            title="Ad spend and attributed revenue per day"
            x={d.records.map((r) => Date.parse(`${r.date}T00:00:00Z`) / 1000)}
            series={[
              { label: 'Attributed revenue', values: d.records.map((r) => r.conversion_value), color: '#2563eb' },
              { label: 'Ad spend', values: d.records.map((r) => r.spend), color: '#dc2626', bars: true },
            ]}
          />
        )}
      </Show>
    </section>
  );
}
