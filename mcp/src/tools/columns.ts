/** Text-table columns shared by the attribution tools. */
import type { Dimension } from '../../../contracts/src/attribution';
import type { Column } from '../text-table';

type Keyed = Partial<Record<Dimension | 'platform', string>>;

/**
 * One column per requested dimension (an empty value shows as `(none)`), and the platform when some row has
 * one (the API keeps a row per platform: paid and organic traffic of one source apart).
 */
export const dimensionColumns = <Row extends Keyed>(
  dimensions: readonly Dimension[],
  rows: readonly Row[],
): Column<Row>[] => [
  ...dimensions.map((d) => ({ header: d, value: (r: Row) => r[d] || '(none)' })),
  ...(rows.some((r) => r.platform) ? [{ header: 'platform', value: (r: Row) => r.platform || '-' }] : []),
];
