import { analyticsCost, roundCosts, sideFigures } from './analytics-cost';
import type { ThroughputPhase } from './pipeline';

describe('analyticsCost', () => {
  it('is one minus the ratio of the mean throughputs with and without the views', () => {
    expect(analyticsCost([3_000], [4_000])).toBe(0.25);
    expect(analyticsCost([3_000, 3_400], [4_000, 4_000])).toBe(0.2);
  });

  it('is negative when the runs with the views were faster (noise, not a gain)', () => {
    expect(analyticsCost([4_100], [4_000])).toBe(-0.025);
  });
});

describe('roundCosts', () => {
  it('gives each round its own cost and the median of them, which one outlying run does not drag', () => {
    // The third run without the views was unusually fast: it moves the cost of the means to 17.5 %, not the median.
    expect(roundCosts([3_500, 4_500, 4_050], [4_280, 4_400, 5_920])).toEqual({
      by_round: [0.182, -0.023, 0.316],
      median: 0.182,
    });
    expect(analyticsCost([3_500, 4_500, 4_050], [4_280, 4_400, 5_920])).toBe(0.175);
    expect(roundCosts([3_000, 3_600], [4_000, 4_000])).toEqual({ by_round: [0.25, 0.1], median: 0.175 });
  });
});

describe('sideFigures', () => {
  const phase = (cpu: number, steps: Record<string, number>): ThroughputPhase => ({
    events: 100,
    events_per_s: 10,
    seconds: 10,
    pipeline_cpu_us_per_event: cpu,
    pipeline_threads_us_per_event: { pipeline_main_thread: null, pipeline_gc_pauses: 0, pipeline_other_threads: null },
    server_cpu_us_per_event: { postgres: null, nats: null },
    batches: { count: 1, mean_size: 100, seconds_p95: 1 },
    batches_warm: { count: 1, mean_size: 100, seconds_p95: 1 },
    raw_payloads_seconds: 11,
    raw_payloads_events_per_s: 9,
    batch_time_by_step: {
      flush_seconds: 0,
      steps: Object.fromEntries(Object.entries(steps).map(([k, seconds]) => [k, { seconds, share: 0 }])),
    },
    db_seconds_by_statement: {},
    persons_recomputed: {},
  });

  it('averages CPU per event and each step over the runs, a step missing from a run counting as zero', () => {
    expect(sideFigures([phase(200, { identity: 4, analytics: 1 }), phase(211, { identity: 5 })])).toEqual({
      cpu_us_per_event: 206,
      step_seconds: { identity: 4.5, analytics: 0.5 },
    });
  });
});
