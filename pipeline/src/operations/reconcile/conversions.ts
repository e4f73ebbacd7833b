/** The conversions phase: the stored conversions' digests against the recomputed ones. */
import type { Query } from '../../../../storage/db';
import { CONVERSION_KEY } from '../../domain/rollups/attribution';
import { type DayRange, inDayRange, type ReportDrift } from './types';

/**
 * Compares by digest (equal digests, equal conversion and credits). `scoped`: only some persons were
 * recomputed, so a stored conversion without an expectation is not drift.
 */
export async function compareConversions(
  q: Query,
  storeId: string,
  expected: ReadonlyMap<string, { digest: string; day: string }>,
  range: DayRange,
  scoped: boolean,
  report: ReportDrift,
): Promise<void> {
  const want = new Map(expected);
  const stored = await q<{ goal: string; conversion_key: string; digest: string; day: string }>(
    'reconcile.conversions',
    "select goal, conversion_key, digest, to_char(day, 'YYYY-MM-DD') as day from conversions where store_id = $1",
    [storeId],
  );
  for (const c of stored) {
    const k = CONVERSION_KEY.of({ goal: c.goal, key: c.conversion_key });
    const exp = want.get(k);
    if (exp?.digest !== c.digest && inDayRange(c.day, range) && (exp || !scoped)) {
      report({
        view: 'conversions',
        key: `${c.goal}/${c.conversion_key}`,
        expected: exp ? { digest: exp.digest } : null,
        actual: { digest: c.digest },
      });
    }
    want.delete(k);
  }
  for (const [k, exp] of want)
    if (inDayRange(exp.day, range))
      report({
        view: 'conversions',
        key: CONVERSION_KEY.parts(k).join('/'),
        expected: { digest: exp.digest },
        actual: null,
      });
}
