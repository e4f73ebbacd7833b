/**
 * Model comparison: every model the API offers side by side, totals (get-list-sum per model) and per channel
 * (get-list per model), with the change against a chosen model. The models come from the API
 * (get/setting-models when the server has it), so a new model appears here by itself.
 */
import { useState } from 'preact/hooks';
import { Basis, Show, Table } from '../components/parts';
import { useData } from '../components/use-data';
import { change, channelName, fmtCount, fmtMoney, fmtRatio } from '../format';
import { offeredFor, useApp, type Option } from '../state';
import type { Page, ReportRecord, Summary } from '../types';

const pct = (c: number | null): string => (c == null ? '–' : `${c >= 0 ? '+' : '−'}${Math.abs(c * 100).toFixed(1)} %`);

export function Models() {
  const app = useApp();
  const { client, selection } = app;
  const { range, goal } = selection;
  // A data-driven model only where its goal is fitted.
  const models = app.models.filter((m) => offeredFor(m, goal));
  const fit = models.find((m) => m.fits?.[goal])?.fits?.[goal];
  const [baseline, setBaseline] = useState(selection.model);
  const body = { start_date: range.start, end_date: range.end, goal };
  const data = useData(async () => {
    const rows = await Promise.all(
      models.map(async (m) => {
        const [sum, list] = await Promise.all([
          client.post<Summary>('all-attribution/get-list-sum', { ...body, model: m.code, dimensions: ['channel'] }),
          client.post<Page<ReportRecord>>('all-attribution/get-list', {
            ...body,
            model: m.code,
            dimensions: ['channel'],
            page: 1,
            page_size: 100,
          }),
        ]);
        return { model: m, sum, byChannel: new Map(list.records.map((r) => [r.channel, r.conversion_value])) };
      }),
    );
    return rows;
  }, [client, range.start, range.end, goal, models.map((m) => m.code).join()]);

  return (
    <section>
      <h1>Model comparison</h1>
      <Basis model={false} note={`changes against ${baseline}`} />
      <label class="inline">
        Compare against{' '}
        <select
          data-testid="baseline"
          value={baseline}
          onChange={(e) => setBaseline((e.target as HTMLSelectElement).value)}
        >
          {models.map((m) => (
            <option value={m.code}>{m.name}</option>
          ))}
        </select>
      </label>
      {fit && <FitWeights fit={fit} />}
      <Show data={data}>
        {(rows) => {
          const base = rows.find((r) => r.model.code === baseline) ?? rows[0]!;
          const channels = [...new Set(rows.flatMap((r) => [...r.byChannel.keys()]))].sort(
            (a, b) => (base.byChannel.get(b) ?? 0) - (base.byChannel.get(a) ?? 0),
          );
          return (
            <>
              <Table
                testid="models-table"
                columns={[
                  { label: 'Model', value: (r) => r.model.name },
                  { label: 'Conversions', value: (r) => fmtCount(r.sum.conversions), numeric: true },
                  { label: 'Revenue', value: (r) => fmtMoney(r.sum.conversion_value), numeric: true },
                  { label: 'ROAS', value: (r) => fmtRatio(r.sum.roas), numeric: true },
                  { label: 'CPA', value: (r) => fmtMoney(r.sum.cpa), numeric: true },
                ]}
                rows={rows}
                selected={(r) => r.model.code === baseline}
              />
              <h2>Attributed revenue by channel</h2>
              <Table
                testid="models-channels-table"
                columns={[
                  { label: 'Channel', value: (c: string) => channelName(c) },
                  ...rows.map((r) => ({
                    label: r.model.name,
                    numeric: true,
                    value: (c: string) => {
                      const v = r.byChannel.get(c) ?? 0;
                      const d = r === base ? '' : ` (${pct(change(v, base.byChannel.get(c) ?? 0))})`;
                      return `${fmtMoney(v)}${d}`;
                    },
                  })),
                ]}
                rows={channels}
              />
            </>
          );
        }}
      </Show>
    </section>
  );
}

/** The data-driven fit of the selected goal: when it was fitted and each channel's weight, as bars. */
function FitWeights({ fit }: { fit: NonNullable<Option['fits']>[string] }) {
  const weights = Object.entries(fit.weights).sort((a, b) => b[1] - a[1]);
  return (
    <div data-testid="fit-weights">
      <h2>Data-driven weights{fit.fittedAt ? ` (fitted ${fit.fittedAt})` : ''}</h2>
      {weights.map(([channel, w]) => (
        <div class="fit-row">
          <span class="fit-channel">{channelName(channel)}</span>
          <span class="fit-bar" style={{ width: `${Math.round(w * 200)}px` }} />
          <span class="fit-value">{(w * 100).toFixed(1)} %</span>
        </div>
      ))}
    </div>
  );
}
