/**
 * Channels: get-list by channel under the selected model and goal; a channel opens its campaigns (get-list by
 * channel and campaign). Deeper levels (ad sets, ads, their customers) are the ads drill-down's own view.
 */
import { useState } from 'preact/hooks';
import { Basis, type Column, Show, Table } from '../components/parts';
import { useData } from '../components/use-data';
import { fmtCount, fmtMoney, fmtRatio } from '../format';
import { useApp } from '../state';
import type { Page, ReportRecord } from '../types';

const numbers: Array<Column<ReportRecord>> = [
  { label: 'Conversions', value: (r) => fmtCount(r.conversions), numeric: true },
  { label: 'Revenue', value: (r) => fmtMoney(r.conversion_value), numeric: true },
  { label: 'Spend', value: (r) => fmtMoney(r.spend), numeric: true },
  { label: 'ROAS', value: (r) => fmtRatio(r.roas), numeric: true },
  { label: 'CPA', value: (r) => fmtMoney(r.cpa), numeric: true },
  { label: 'Net profit', value: (r) => fmtMoney(r.net_profit), numeric: true },
];

export function Channels() {
  const { client, selection } = useApp();
  const { range, model, goal } = selection;
  const [channel, setChannel] = useState<string | null>(null);
  const base = { start_date: range.start, end_date: range.end, model, goal, page: 1, page_size: 100 };
  const orders = [{ column: 'conversion_value', order: 'desc' }];
  const channels = useData(
    () => client.post<Page<ReportRecord>>('all-attribution/get-list', { ...base, dimensions: ['channel'], orders }),
    [client, range.start, range.end, model, goal],
  );
  const campaigns = useData(
    async () =>
      channel == null
        ? null
        : (
            await client.post<Page<ReportRecord>>('all-attribution/get-list', {
              ...base,
              dimensions: ['channel', 'campaign'],
              orders,
            })
          ).records.filter((r) => r.channel === channel),
    [client, range.start, range.end, model, goal, channel],
  );
  return (
    <section>
      <h1>Channels</h1>
      <Basis />
      <Show data={channels} empty={(d) => d.records.length === 0}>
        {(d) => (
          <Table
            testid="channels-table"
            columns={[{ label: 'Channel', value: (r) => r.channel || '(none)' }, ...numbers]}
            rows={d.records}
            onRow={(r) => setChannel(r.channel === channel ? null : r.channel)}
            selected={(r) => r.channel === channel}
          />
        )}
      </Show>
      {channel != null ? (
        <>
          <h2>Campaigns of {channel}</h2>
          <Show data={campaigns} empty={(d) => !d || d.length === 0}>
            {(d) => (
              <Table
                testid="campaigns-table"
                columns={[{ label: 'Campaign', value: (r) => r.campaign || '(none)' }, ...numbers]}
                rows={d ?? []}
              />
            )}
          </Show>
        </>
      ) : (
        <p class="hint">Choose a channel to see its campaigns.</p>
      )}
    </section>
  );
}
