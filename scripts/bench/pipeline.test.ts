import { committedIn, cpuSecondsIn } from './bench-env';
import { batchTimeBySteps, dbTimeByTag } from './pipeline';

const scrape = (steps: Record<string, number>, flush: number, tags: Record<string, number>): string =>
  [
    '# HELP pipeline_batch_step_seconds_total Wall time of the named steps',
    '# TYPE pipeline_batch_step_seconds_total counter',
    ...Object.entries(steps).map(([s, v]) => `pipeline_batch_step_seconds_total{step="${s}"} ${v}`),
    `pipeline_flush_duration_seconds_sum ${flush}`,
    'pipeline_flush_duration_seconds_count 7',
    ...Object.entries(tags).flatMap(([t, v]) => [
      `pipeline_db_query_duration_seconds_sum{tag="${t}",ok="true"} ${v}`,
      `pipeline_db_query_duration_seconds_sum{tag="${t}",ok="false"} 100`,
    ]),
  ].join('\n');

describe('the pipeline bench reading the daemon’s metrics', () => {
  it('gives each step’s seconds and share of the flush time since the first scrape, the rest as other', () => {
    const before = scrape({ identity: 1, analytics: 2 }, 10, {});
    const after = scrape({ identity: 4, analytics: 4, load: 1 }, 20, {});
    expect(batchTimeBySteps(before, after)).toEqual({
      flush_seconds: 10,
      steps: {
        identity: { seconds: 3, share: 0.3 },
        analytics: { seconds: 2, share: 0.2 },
        load: { seconds: 1, share: 0.1 },
        other: { seconds: 4, share: 0.4 },
      },
    });
  });

  it('ranks the statements that succeeded by time since the first scrape', () => {
    const before = scrape({}, 0, { 'identity.lock_keys': 1, 'raw_events.insert': 1 });
    const after = scrape({}, 0, { 'identity.lock_keys': 2.5, 'raw_events.insert': 4, 'views.web_users_upsert': 0.5 });
    expect(dbTimeByTag(before, after, 2)).toEqual({ 'raw_events.insert': 3, 'identity.lock_keys': 1.5 });
  });

  it('reads the committed messages (every result) and the CPU seconds from one scrape', () => {
    const text = [
      'pipeline_events_consumed_total{result="stored"} 120',
      'pipeline_events_consumed_total{result="duplicate"} 3',
      'pipeline_events_consumed_total{result="dead_letter"} 1',
      'process_cpu_seconds_total 12.5',
    ].join('\n');
    expect(committedIn(text)).toBe(124);
    expect(cpuSecondsIn(text, 'daemon')).toBe(12.5);
    expect(() => cpuSecondsIn('', 'the daemon')).toThrow('the daemon has no process_cpu_seconds_total');
  });
});
