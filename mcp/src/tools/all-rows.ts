/** Every row of a get-list report, page by page, for the tools that join reports by key. */
import type { Dimension } from '../../../contracts/src/attribution';
import type { AttributionRecord, GetListSumRequest } from '../../../contracts/src/reports';
import type { ReportClient } from '../report-client';
import { ATTRIBUTION_METRICS, type AttributionMetric } from '../../../contracts/src/reports';
import { ToolInputError } from './tool';

export type KeyedRow = Partial<Record<Dimension | 'platform', string>>;
/** The requested dimensions of a joined row, and its platform. */
export type RowKeyValues = Partial<Record<Dimension, string>> & { platform: string };

/** The most rows per report a joining tool reads (10 pages of 100). */
export const MAX_JOINED_ROWS = 1000;
const PAGE = 100;

export async function allRows(client: ReportClient, body: GetListSumRequest): Promise<AttributionRecord[]> {
  const rows: AttributionRecord[] = [];
  for (let page = 1; ; page++) {
    const data = await client.getList({ ...body, page, page_size: PAGE });
    if (data.total > MAX_JOINED_ROWS) {
      throw new ToolInputError(
        'dimensions',
        `the report has ${data.total} rows, more than the ${MAX_JOINED_ROWS} this tool joins; use fewer or coarser dimensions`,
      );
    }
    rows.push(...data.records);
    if (data.records.length < PAGE || rows.length >= data.total) return rows;
  }
}

/**
 * The key of a row: its values of the requested dimensions and its platform (the API keeps paid and organic
 * traffic of one source apart, so one channel can have a row per platform).
 */
export const rowKey = (row: KeyedRow, dimensions: readonly Dimension[]): string =>
  JSON.stringify([...dimensions.map((d) => row[d] ?? ''), row.platform ?? '']);

/** The values of the requested dimensions of a row, and its platform. */
export const dimensionsOf = (row: KeyedRow, dimensions: readonly Dimension[]): RowKeyValues => ({
  ...Object.fromEntries(dimensions.map((d) => [d, row[d] ?? ''])),
  platform: row.platform ?? '',
});

/** The fourteen numbers of a row. */
export const figuresOf = (row: Record<AttributionMetric, number>): Record<AttributionMetric, number> =>
  Object.fromEntries(ATTRIBUTION_METRICS.map((m) => [m, row[m]])) as Record<AttributionMetric, number>;

export const ZERO_FIGURES = Object.freeze(
  Object.fromEntries(ATTRIBUTION_METRICS.map((m) => [m, 0])) as Record<AttributionMetric, number>,
);
