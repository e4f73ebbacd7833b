import { BatchRollups } from './pg-batch-rollups';
import type { RollupTable } from '../domain/rollups/table';

const TABLE: RollupTable = {
  table: 'counter_test',
  keys: [{ name: 'day', type: 'date' }],
  values: [{ name: 'users', type: 'integer' }],
};

it('refuses a store queued twice for one table, which one upsert statement could not apply', () => {
  const rollups = new BatchRollups();
  rollups.add('st_a', [{ table: TABLE, rows: [{ day: '2026-03-01', users: 1 }] }]);
  rollups.add('st_b', [{ table: TABLE, rows: [{ day: '2026-03-01', users: 1 }] }]);
  expect(() => rollups.add('st_a', [{ table: TABLE, rows: [] }])).toThrow(/st_a queued twice/);
});
