/** The spend phase: `ad_spend_daily` against the ad spend rows summed in SQL, and its repair. */
import type { Query } from '../../../../storage/db';
import { AD_SPEND_DAILY } from '../../domain/rollups/spend';
import { fieldOfColumn } from '../../domain/rollups/table';
import { DAY_FILTER, type DayRange, dayParams, type ReportDrift } from './types';

const DIMS = AD_SPEND_DAILY.keys.map((c) => c.name);
const SUMS = AD_SPEND_DAILY.values.map((c) => c.name);
const nonZero = `having ${SUMS.map((v) => `sum(${v}) <> 0`).join(' or ')}`;
/** The spend rows summed by the rollup's key: what the rollup should hold. */
const summedSpend = (where: string) =>
  `select ${DIMS.join(', ')}, ${SUMS.map((v) => `sum(${v}) as ${v}`).join(', ')}
   from ad_spend where store_id = $1 ${where} group by ${DIMS.join(', ')} ${nonZero}`;

const sumsJson = (alias: string) =>
  `jsonb_build_object(${SUMS.map((v) => `'${fieldOfColumn(v)}', ${alias}.${v}`).join(', ')})`;

export async function compareSpend(q: Query, storeId: string, range: DayRange, report: ReportDrift): Promise<void> {
  const rows = await q<{ key: string; expected: unknown; actual: unknown }>(
    'reconcile.spend',
    `with e as (${summedSpend(`and ${DAY_FILTER}`)}),
     a as (select ${[...DIMS, ...SUMS].join(', ')} from ad_spend_daily where store_id = $1 and ${DAY_FILTER})
     select concat_ws('|', to_char(coalesce(e.day, a.day), 'YYYY-MM-DD'),
                      ${DIMS.slice(1)
                        .map((d) => `coalesce(e.${d}, a.${d})`)
                        .join(', ')}) as key,
            case when e.day is null then null else ${sumsJson('e')} end as expected,
            case when a.day is null then null else ${sumsJson('a')} end as actual
     from e full join a using (${DIMS.join(', ')})
     where e.day is null or a.day is null or (${SUMS.map((v) => `e.${v}`).join(', ')}) is distinct from (${SUMS.map((v) => `a.${v}`).join(', ')})`,
    dayParams(storeId, range),
  );
  for (const r of rows) report({ view: 'ad_spend_daily', key: r.key, expected: r.expected, actual: r.actual });
}

/** Rewrites the store's spend rollup (cleared by the repair) from its spend rows. */
export async function repairSpend(q: Query, storeId: string): Promise<void> {
  await q(
    'repair.spend',
    `insert into ad_spend_daily (store_id, ${[...DIMS, ...SUMS].join(', ')})
     select $1, * from (${summedSpend('')}) s`,
    [storeId],
  );
}
