/** A uPlot chart in a Preact component: created once per data set, resized with its container. */
import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';

export interface Series {
  label: string;
  values: number[];
  color: string;
  bars?: boolean;
}

export function Chart(props: { x: number[]; series: Series[]; height?: number; testid?: string; title: string }) {
  const el = useRef<HTMLDivElement>(null);
  // Re-created only when the data changes, not on every render of the parent.
  const key = JSON.stringify([props.x, props.series]);
  useEffect(() => {
    const node = el.current;
    if (!node) return undefined;
    const width = (): number => Math.max(240, node.clientWidth);
    const plot = new uPlot(
      {
        title: props.title,
        // Days are calendar days of the store: show them as given, whatever the browser's zone.
        tzDate: (ts) => uPlot.tzDate(new Date(ts * 1000), 'Etc/UTC'),
        width: width(),
        height: props.height ?? 240,
        series: [
          {},
          ...props.series.map((s) => ({
            label: s.label,
            stroke: s.color,
            fill: s.bars ? `${s.color}55` : undefined,
            width: 2,
            paths: s.bars ? uPlot.paths.bars!({ size: [0.6, 40] }) : undefined,
          })),
        ],
        axes: [{}, { size: 60 }],
      },
      [props.x, ...props.series.map((s) => s.values)],
      node,
    );
    const observer = new ResizeObserver(() => plot.setSize({ width: width(), height: props.height ?? 240 }));
    observer.observe(node);
    return () => {
      observer.disconnect();
      plot.destroy();
    };
  }, [key, props.height, props.title]);
  return <div class="chart" ref={el} data-testid={props.testid} />;
}
