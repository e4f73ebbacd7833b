import { committedIn, cpuSecondsIn, gcPauseSecondsIn, partitionShares, pipelineThreadsPerEvent } from './bench-env';
import { batchesBetween, batchTimeBySteps, dbTimeByTag, personsRecomputed } from './pipeline';

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
  it('counts the batches committed since the first scrape, their mean size and the p95 of their duration', () => {
    const batches = (count: number, sizeSum: number, le: Record<string, number>): string =>
      [
        `pipeline_batch_size_count ${count}`,
        `pipeline_batch_size_sum ${sizeSum}`,
        ...Object.entries(le).map(([b, n]) => `pipeline_flush_duration_seconds_bucket{le="${b}"} ${n}`),
      ].join('\n');
    const before = batches(10, 1000, { '0.5': 10, '1': 10, '2.5': 10, '+Inf': 10 });
    // 20 more batches of 2,000 messages: 18 within 0.5 s, the other two within 2.5 s.
    const after = batches(30, 41_000, { '0.5': 28, '1': 28, '2.5': 30, '+Inf': 30 });
    const read = batchesBetween(before, after);
    expect({ count: read.count, mean_size: read.mean_size }).toEqual({ count: 20, mean_size: 2000 });
    expect(read.seconds_p95).toBeGreaterThan(1);
    expect(read.seconds_p95).toBeLessThanOrEqual(2.5);
  });

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

  it('counts the persons recomputed since the first scrape, by path, over every worker', () => {
    const line = (path: string, n: number) => `pipeline_persons_recomputed_total{path="${path}"} ${n}`;
    const before = [line('extended', 5), line('full', 10), line('extended', 1)].join('\n');
    const after = [line('extended', 50), line('full', 12), line('extended', 3)].join('\n');
    expect(personsRecomputed(before, after)).toEqual({ extended: 47, full: 2 });
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

  it('sums each figure over the joined scrapes of several workers', () => {
    const worker = (consumed: number, cpu: number, step: number, tag: number) =>
      [
        scrape({ identity: step }, step * 2, { 'raw_events.copy': tag }),
        `pipeline_events_consumed_total{result="stored"} ${consumed}`,
        `process_cpu_seconds_total ${cpu}`,
      ].join('\n');
    const before = [worker(10, 1, 1, 1), worker(20, 2, 2, 2)].join('\n');
    const after = [worker(110, 4, 3, 2), worker(220, 7, 6, 5)].join('\n');
    expect(committedIn(after)).toBe(330);
    expect(cpuSecondsIn(after, 'workers') - cpuSecondsIn(before, 'workers')).toBe(8);
    expect(batchTimeBySteps(before, after).steps.identity).toEqual({ seconds: 6, share: 0.5 });
    expect(dbTimeByTag(before, after, 1)).toEqual({ 'raw_events.copy': 4 });
  });

  it('splits the pipeline’s CPU per event by thread, the collector’s pauses from every kind and worker', () => {
    const gc = (minor: number, major: number) =>
      [
        `nodejs_gc_duration_seconds_bucket{le="0.01",kind="minor"} 3`,
        `nodejs_gc_duration_seconds_sum{kind="minor"} ${minor}`,
        `nodejs_gc_duration_seconds_count{kind="minor"} 3`,
        `nodejs_gc_duration_seconds_sum{kind="major"} ${major}`,
      ].join('\n');
    const before = { threads: { main: 10, others: 4 }, gcPauses: gcPauseSecondsIn([gc(1, 0.5), gc(2, 0)].join('\n')) };
    const after = {
      threads: { main: 13, others: 6 },
      gcPauses: gcPauseSecondsIn([gc(1.5, 0.5), gc(2.2, 0.3)].join('\n')),
    };
    expect(before.gcPauses).toBe(3.5);
    expect(pipelineThreadsPerEvent(before, after, 1000)).toEqual({
      pipeline_main_thread: 3000,
      pipeline_gc_pauses: 1000,
      pipeline_other_threads: 2000,
    });
    // Threads not read (off Linux): the pauses still come from the metrics.
    expect(pipelineThreadsPerEvent({ ...before, threads: null }, after, 1000)).toEqual({
      pipeline_main_thread: null,
      pipeline_gc_pauses: 1000,
      pipeline_other_threads: null,
    });
  });
});

describe('partitionShares', () => {
  it('gives each worker consecutive partitions, as evenly as they divide', () => {
    expect(partitionShares(16, 1)).toEqual(['0-15']);
    expect(partitionShares(16, 2)).toEqual(['0-7', '8-15']);
    expect(partitionShares(16, 3)).toEqual(['0-4', '5-9', '10-15']);
  });

  it('refuses a worker count that is not a whole number from 1 to the partitions', () => {
    for (const bad of [0, 17, 1.5, Number.NaN]) expect(() => partitionShares(16, bad)).toThrow('workers must be');
  });
});
