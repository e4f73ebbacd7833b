/** Small shared pieces: the label every figure carries, loading / empty / error states, KPI tiles, tables. */
import type { ComponentChildren } from 'preact';
import { useApp } from '../state';
import type { Loaded } from './use-data';

/** What the figures of a view are: model, goal, window and freshness (docs/product.md, Dashboard). */
export function Basis(props: { model?: boolean; goal?: boolean; note?: string }) {
  const app = useApp();
  const { range, model, goal } = app.selection;
  const modelName = app.models.find((m) => m.code === model)?.name ?? model;
  const parts = [
    props.model === false ? null : `model ${modelName}`,
    props.goal === false ? null : `goal ${goal}`,
    `${range.start} to ${range.end} (exclusive)`,
    app.lookbackDays ? `lookback ${app.lookbackDays} days` : null,
    `data as of ${app.freshness ?? 'no events yet'}`,
    props.note ?? null,
  ].filter(Boolean);
  return (
    <p class="basis" data-testid="basis">
      {parts.join(' · ')}
    </p>
  );
}

export function Show<T>(props: { data: Loaded<T>; empty?: (d: T) => boolean; children: (d: T) => ComponentChildren }) {
  const { data } = props;
  if (data.status === 'loading')
    return (
      <div class="state loading" aria-busy="true">
        Loading…
      </div>
    );
  if (data.status === 'error')
    return (
      <div class="state error" role="alert">
        {data.message}
      </div>
    );
  if (props.empty?.(data.data)) return <div class="state empty">No data for these dates.</div>;
  return <>{props.children(data.data)}</>;
}

export function Kpi(props: { label: string; value: string; change?: string; testid?: string }) {
  return (
    <div class="kpi" data-testid={props.testid}>
      <div class="kpi-label">{props.label}</div>
      <div class="kpi-value">{props.value}</div>
      {props.change ? <div class="kpi-change">{props.change}</div> : null}
    </div>
  );
}

export interface Column<R> {
  label: string;
  value: (r: R) => ComponentChildren;
  numeric?: boolean;
}

export function Table<R>(props: {
  columns: Column<R>[];
  rows: R[];
  testid?: string;
  onRow?: (r: R) => void;
  selected?: (r: R) => boolean;
}) {
  return (
    <div class="table-wrap">
      <table data-testid={props.testid}>
        <thead>
          <tr>
            {props.columns.map((c) => (
              <th class={c.numeric ? 'num' : undefined}>{c.label}</th>
            ))}
          </tr>
        </thead>
        <tbody>
          {props.rows.map((r) => (
            <tr
              class={
                [props.onRow ? 'clickable' : '', props.selected?.(r) ? 'selected' : ''].join(' ').trim() || undefined
              }
              onClick={props.onRow ? () => props.onRow!(r) : undefined}
            >
              {props.columns.map((c) => (
                <td class={c.numeric ? 'num' : undefined}>{c.value(r)}</td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
