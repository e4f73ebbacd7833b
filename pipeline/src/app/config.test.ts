import { loadPipelineConfig } from './config';

const base = { NATS_URL: 'nats://127.0.0.1:4222', DATABASE_URL: 'postgres://u:p@127.0.0.1:5432/a' };

describe('PIPELINE_NICE', () => {
  it('lowers the daemon’s CPU priority by 10 unless told otherwise', () => {
    expect(loadPipelineConfig(base).nice).toBe(10);
    expect(loadPipelineConfig({ ...base, PIPELINE_NICE: '0' }).nice).toBe(0);
    expect(loadPipelineConfig({ ...base, PIPELINE_NICE: '19' }).nice).toBe(19);
  });

  it('refuses what is not a niceness a process may give itself, naming the variable', () => {
    for (const bad of ['20', '-5', 'high'])
      expect(() => loadPipelineConfig({ ...base, PIPELINE_NICE: bad })).toThrow(/PIPELINE_NICE/);
  });
});
