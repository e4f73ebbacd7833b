/**
 * Reconciliation (docs/product.md, Attribution invariant): recompute a store's views from its stored facts alone
 * (identity from the links, every person from its facts, spend from the ad spend rows), compare with
 * what the incrementally maintained views hold, report the drift row by row, and optionally repair it.
 */
import { REBUILT_VIEW_TABLES, VIEW_TABLES } from '../../../storage/schema';
import { ORDER_CLIENT_PREFIX } from '../../../contracts/src/identity';
import { PERIOD_GRAINS, periodEnd } from '../../../contracts/src/rollup-periods';
import type { Db, Query, TransactionOptions } from '../../../storage/db';
import { personsOfLinks } from '../domain/identity';
import { type PersonView, recomputePerson, type StoreRules } from '../domain/recompute-person';
import {
  accumulateCredits,
  applyAttributionDelta,
  byPeriod,
  creditRowsOf,
  digestOf,
  loadFactsOfGroups,
  type LoadedPersons,
  type RollupDelta,
  CONVERSION_KEY,
  ROLLUP_KEY,
  type SpendDelta,
  writeConversions,
  withoutLandingPage,
  writeSessions,
} from '../adapters/pg-views';
import {
  accumulateContribution,
  type AnalyticsRollup,
  applyAnalyticsDelta,
  compareAnalytics,
  contributionOf,
  emptyDelta,
  type PersonContribution,
  writeAnalytics,
} from '../adapters/analytics-rollups';
import { besideBackground, eventLoopTurns } from '../adapters/beside-statements';
import { loadStores } from '../adapters/pg-fact-store';
import { accumulateAdCredits, type AdRollupSums, mergeAdDeltas } from '../domain/ad-rollup';
import { addSums, isZeroSums } from '../domain/credit-sums';
import { adRollupDrift, applyAdRollupDelta } from '../adapters/ad-rollup';

export interface DriftRow {
  view:
    | 'clients'
    | 'sessions'
    | 'conversions'
    | 'conversion_credits'
    | 'attribution_daily'
    | 'attribution_by_source'
    | 'attribution_periods'
    | 'attribution_by_source_periods'
    | 'attribution_by_ad'
    | 'ad_spend_daily'
    | AnalyticsRollup;
  key: string;
  expected: unknown;
  actual: unknown;
}

export interface ReconcileOptions {
  /** Compare rollup days from this day (YYYY-MM-DD, inclusive); the whole history when absent. */
  from?: string;
  /** ... to this day (exclusive). */
  to?: string;
  repair?: boolean;
  /**
   * Run inside the repair's transaction once it holds the views' locks, before the store's settings are read: a
   * new data-driven fit is stored there, so that storing it and recomputing under it are one transaction.
   */
  beforeRepair?: (q: Query) => Promise<void>;
  /** Persons recomputed per round trip. */
  chunk?: number;
  /** Stop collecting drift rows after this many (the count stays exact). */
  maxRows?: number;
  /**
   * With `from`: recompute only the persons active since `from` minus the lookback window (every
   * conversion on a day in the range belongs to one of them), instead of every person of the store.
   */
  recentOnly?: boolean;
}

export interface ReconcileResult {
  storeId: string;
  persons: number;
  conversions: number;
  driftCount: number;
  drift: DriftRow[];
  repaired: boolean;
}

const inRange = (day: string, o: ReconcileOptions): boolean => (!o.from || day >= o.from) && (!o.to || day < o.to);

export async function reconcileStore(db: Db, storeId: string, opts: ReconcileOptions = {}): Promise<ReconcileResult> {
  const maxRows = opts.maxRows ?? 1000;
  const chunk = opts.chunk ?? 500;
  const drift: DriftRow[] = [];
  let driftCount = 0;
  const report = (row: DriftRow): void => {
    driftCount++;
    if (drift.length < maxRows) drift.push(row);
  };
  // One snapshot for every read (the live pipeline may commit meanwhile); a repair takes the views' write
  // locks so no batch interleaves with the rebuild.
  const mode: TransactionOptions = opts.repair
    ? { isolation: 'read committed' }
    : { isolation: 'repeatable read', readOnly: true };
  return db.transaction(
    'reconcile',
    async (q) => {
      if (opts.repair) {
        await q('reconcile.lock', `lock table ${VIEW_TABLES.join(', ')} in exclusive mode`);
        await opts.beforeRepair?.(q);
      }
      const [store] = await loadStores(q, [storeId]).then((m) => [...m.values()]);
      if (!store) throw new Error(`no store with id ${storeId}`);
      // The stored settings and data-driven fits: reconciliation holds under the weights stored.
      const rules: StoreRules = {
        timezone: store.timezone,
        lookbackDays: store.lookbackDays,
        halfLifeDays: store.halfLifeDays,
        dataDrivenWeights: store.dataDrivenWeights,
      };

      // Identity from the links alone.
      const [clientRows, linkRows] = await Promise.all([
        q<{ client_id: string; person_id: string }>(
          'reconcile.clients',
          'select client_id, person_id from clients where store_id = $1',
          [storeId],
        ),
        q<{ client_id: string; key: string }>(
          'reconcile.links',
          'select client_id, key from identity_links where store_id = $1 order by key',
          [storeId],
        ),
      ]);
      const comps = personsOfLinks(linkRows.map((l) => [l.client_id, l.key] as const));
      const groups = new Map<string, string[]>();
      for (const c of clientRows) {
        const p = comps.find(c.client_id);
        if (p !== c.person_id)
          report({ view: 'clients', key: c.client_id, expected: { person_id: p }, actual: { person_id: c.person_id } });
        groups.set(p, [...(groups.get(p) ?? []), c.client_id]);
      }
      let personIds = [...groups.keys()].sort();
      if (opts.recentOnly && opts.from && !opts.repair) {
        const since = new Date(Date.parse(opts.from) - (rules.lookbackDays + 1) * 86_400_000).toISOString();
        const active = await q<{ client_id: string }>(
          'reconcile.active_clients',
          `select distinct client_id from event_facts where store_id = $1 and occurred_at >= $2
         union select $4 || order_id from order_facts where store_id = $1 and created_at >= $2
         union select c.client_id from conversions v join clients c on c.store_id = v.store_id and c.person_id = v.person_id
           where v.store_id = $1 and v.day >= $3::date`,
          [storeId, since, opts.from, ORDER_CLIENT_PREFIX],
        );
        const scoped = new Set(active.map((a) => comps.find(a.client_id)).filter((p) => groups.has(p)));
        personIds = personIds.filter((p) => scoped.has(p));
      }

      if (opts.repair) {
        const conversions = await repairViews(q, storeId, personIds, groups, rules, chunk);
        return { storeId, persons: personIds.length, conversions, driftCount, drift, repaired: true };
      }

      // Recompute every person, chunk by chunk, comparing sessions and conversions as we go.
      const expectedRollup = new Map<string, RollupDelta>();
      const expectedAdRollup = new Map<string, AdRollupSums>();
      const expectedDigest = new Map<string, { digest: string; day: string }>();
      const expectedAnalytics = emptyDelta();
      let conversions = 0;
      for (let i = 0; i < personIds.length; i += chunk) {
        const ids = personIds.slice(i, i + chunk);
        const { loaded, views, contributions } = await recomputeChunk(q, storeId, ids, groups, rules);
        for (const c of contributions) accumulateContribution(expectedAnalytics, c, 1);
        for (const v of views) {
          for (const c of v.conversions) {
            conversions++;
            expectedDigest.set(CONVERSION_KEY.of(c), { digest: digestOf(c, v.personId), day: c.day });
            accumulateCredits(expectedRollup, creditRowsOf(c), 1);
            accumulateAdCredits(expectedAdRollup, creditRowsOf(c), 1);
          }
        }
        const stored = await q<{
          client_id: string;
          started_at: Date;
          origin: string;
          source: string;
          medium: string;
          campaign: string;
          landing_page: string;
          campaign_id: string;
          ad_set_id: string;
          ad_id: string;
        }>(
          'reconcile.sessions',
          `select client_id, started_at, origin, source, medium, campaign, landing_page, campaign_id, ad_set_id, ad_id
         from sessions where store_id = $1 and client_id = any($2::text[])`,
          [storeId, loaded.clientIds],
        );
        const expectedSessions = new Map(
          views
            .flatMap((v) => v.sessions)
            .map((s) => [
              `${s.clientId}@${new Date(s.startedAt).toISOString()}`,
              {
                origin: s.touch.origin,
                source: s.touch.source,
                medium: s.touch.medium,
                campaign: s.touch.campaign,
                landing_page: s.touch.landingPage,
                campaign_id: s.touch.campaignId,
                ad_set_id: s.touch.adSetId,
                ad_id: s.touch.adId,
              },
            ]),
        );
        for (const r of stored) {
          const key = `${r.client_id}@${r.started_at.toISOString()}`;
          const exp = expectedSessions.get(key);
          const act = {
            origin: r.origin,
            source: r.source,
            medium: r.medium,
            campaign: r.campaign,
            landing_page: r.landing_page,
            campaign_id: r.campaign_id,
            ad_set_id: r.ad_set_id,
            ad_id: r.ad_id,
          };
          if (!exp || JSON.stringify(exp) !== JSON.stringify(act))
            report({ view: 'sessions', key, expected: exp ?? null, actual: act });
          expectedSessions.delete(key);
        }
        for (const [key, exp] of expectedSessions) report({ view: 'sessions', key, expected: exp, actual: null });
      }

      // Conversions by digest.
      const storedConv = await q<{ goal: string; conversion_key: string; digest: string; day: string }>(
        'reconcile.conversions',
        "select goal, conversion_key, digest, to_char(day, 'YYYY-MM-DD') as day from conversions where store_id = $1",
        [storeId],
      );
      for (const c of storedConv) {
        const k = CONVERSION_KEY.of({ goal: c.goal, key: c.conversion_key });
        const exp = expectedDigest.get(k);
        // Scoped to recent persons, a conversion of a person outside the scope has no expectation here.
        if (exp?.digest !== c.digest && inRange(c.day, opts) && (exp || !opts.recentOnly)) {
          report({
            view: 'conversions',
            key: `${c.goal}/${c.conversion_key}`,
            expected: exp ? { digest: exp.digest } : null,
            actual: { digest: c.digest },
          });
        }
        expectedDigest.delete(k);
      }
      for (const [k, exp] of expectedDigest) {
        if (inRange(exp.day, opts)) {
          report({
            view: 'conversions',
            key: CONVERSION_KEY.parts(k).join('/'),
            expected: { digest: exp.digest },
            actual: null,
          });
        }
      }

      // The rollup, and the credits table summed the same way.
      const dayFilter = `and ($2::date is null or day >= $2::date) and ($3::date is null or day < $3::date)`;
      const rollupCols = `to_char(day, 'YYYY-MM-DD') as day, goal, model, channel, source, medium, campaign, landing_page, platform`;
      const compareRollup = (
        view:
          | 'attribution_daily'
          | 'attribution_by_source'
          | 'attribution_periods'
          | 'attribution_by_source_periods'
          | 'conversion_credits',
        rows: Array<Record<string, string>>,
        expectedRows: Map<string, RollupDelta> = expectedRollup,
        dayInScope: (day: string) => boolean = (day) => inRange(day, opts),
        label = '',
      ): void => {
        const expected = new Map(
          [...expectedRows].filter(([k, d]) => !isZeroSums(d) && dayInScope(ROLLUP_KEY.get(k, 'day'))),
        );
        for (const r of rows) {
          const k = ROLLUP_KEY.ofColumns(r);
          const act = {
            weight: Number(r.weight),
            newWeight: Number(r.new_weight),
            valueMicros: Number(r.value_micros),
            cogsMicros: Number(r.cogs_micros),
          };
          const exp = expected.get(k);
          if (!exp || JSON.stringify(exp) !== JSON.stringify(act))
            report({ view, key: label + ROLLUP_KEY.display(k), expected: exp ?? null, actual: act });
          expected.delete(k);
        }
        for (const [k, exp] of expected)
          report({ view, key: label + ROLLUP_KEY.display(k), expected: exp, actual: null });
      };
      compareRollup(
        'attribution_daily',
        await q(
          'reconcile.rollup',
          `select ${rollupCols}, weight, new_weight, value_micros, cogs_micros from attribution_daily where store_id = $1 ${dayFilter}`,
          [storeId, opts.from ?? null, opts.to ?? null],
        ),
      );
      compareRollup(
        'attribution_by_source',
        await q(
          'reconcile.rollup_by_source',
          `select ${rollupCols.replace('landing_page', "'' as landing_page")}, weight, new_weight, value_micros, cogs_micros
         from attribution_by_source where store_id = $1 ${dayFilter}`,
          [storeId, opts.from ?? null, opts.to ?? null],
        ),
        withoutLandingPage(expectedRollup),
      );
      // The weeks and months wholly inside the compared days (one reaching outside sums days not compared).
      for (const [view, cols, expectedByDay] of [
        ['attribution_periods', rollupCols, expectedRollup],
        [
          'attribution_by_source_periods',
          rollupCols.replace('landing_page', "'' as landing_page"),
          withoutLandingPage(expectedRollup),
        ],
      ] as const) {
        const periods = await q<Record<string, string>>(
          `reconcile.${view}`,
          `select grain, ${cols}, weight, new_weight, value_micros, cogs_micros from ${view} where store_id = $1 ${dayFilter}`,
          [storeId, opts.from ?? null, opts.to ?? null],
        );
        for (const grain of PERIOD_GRAINS) {
          const whollyInRange = (start: string): boolean => {
            const end = periodEnd(grain, start);
            return inRange(start, opts) && (!opts.to || (end !== null && end <= opts.to));
          };
          compareRollup(
            view,
            periods.filter((r) => r.grain === grain && whollyInRange(r.day!)),
            byPeriod(expectedByDay, grain),
            whollyInRange,
            `${grain}|`,
          );
        }
      }
      compareRollup(
        'conversion_credits',
        await q(
          'reconcile.credits',
          `select ${rollupCols}, sum(weight) as weight, sum(new_weight) as new_weight, sum(value_micros) as value_micros,
                sum(cogs_micros) as cogs_micros
         from conversion_credits where store_id = $1 ${dayFilter}
         group by day, goal, model, channel, source, medium, campaign, landing_page, platform
         having sum(weight) <> 0 or sum(new_weight) <> 0 or sum(value_micros) <> 0 or sum(cogs_micros) <> 0`,
          [storeId, opts.from ?? null, opts.to ?? null],
        ),
      );

      // The ad rollup, and the paid credits summed by ad.
      for (const d of await adRollupDrift(q, storeId, expectedAdRollup, opts)) report(d);

      // Spend: the rollup against the ad spend rows.
      const spend = await q<{ key: string; expected: SpendDelta | null; actual: SpendDelta | null }>(
        'reconcile.spend',
        `with e as (
         select day, platform, channel, source, medium, campaign, sum(spend_micros) s, sum(impressions) i, sum(clicks) c, sum(conv_value_micros) v
         from ad_spend where store_id = $1 ${dayFilter} group by 1, 2, 3, 4, 5, 6
         having sum(spend_micros) <> 0 or sum(impressions) <> 0 or sum(clicks) <> 0 or sum(conv_value_micros) <> 0
       ), a as (
         select day, platform, channel, source, medium, campaign, spend_micros s, impressions i, clicks c, conv_value_micros v
         from ad_spend_daily where store_id = $1 ${dayFilter}
       )
       select concat_ws('|', to_char(coalesce(e.day, a.day), 'YYYY-MM-DD'), coalesce(e.platform, a.platform), coalesce(e.channel, a.channel),
                        coalesce(e.source, a.source), coalesce(e.medium, a.medium), coalesce(e.campaign, a.campaign)) as key,
              case when e.day is null then null else jsonb_build_object('spendMicros', e.s, 'impressions', e.i, 'clicks', e.c, 'convValueMicros', e.v) end as expected,
              case when a.day is null then null else jsonb_build_object('spendMicros', a.s, 'impressions', a.i, 'clicks', a.c, 'convValueMicros', a.v) end as actual
       from e full join a using (day, platform, channel, source, medium, campaign)
       where e.day is null or a.day is null or (e.s, e.i, e.c, e.v) is distinct from (a.s, a.i, a.c, a.v)`,
        [storeId, opts.from ?? null, opts.to ?? null],
      );
      for (const r of spend) report({ view: 'ad_spend_daily', key: r.key, expected: r.expected, actual: r.actual });

      await compareAnalytics(q, storeId, expectedAnalytics, (day) => inRange(day, opts), opts, report);

      return { storeId, persons: personIds.length, conversions, driftCount, drift, repaired: false };
    },
    mode,
  );
}

/** How long a repair computes the next chunk before it lets the current chunk's statements proceed. */
const REPAIR_SLICE_MS = 0.5;

/**
 * A chunk of persons loaded and recomputed, with their analytics contributions; giving the event loop a turn
 * every `sliceMs` (0: never) when statements run beside it.
 */
async function recomputeChunk(
  q: Query,
  storeId: string,
  ids: readonly string[],
  groups: Map<string, string[]>,
  rules: StoreRules,
  sliceMs = 0,
): Promise<{ loaded: LoadedPersons; views: PersonView[]; contributions: PersonContribution[] }> {
  const members = ids.flatMap((p) => groups.get(p)!.map((client_id) => ({ client_id, person_id: p })));
  const loaded = await loadFactsOfGroups(q, storeId, ids, members);
  const turn = eventLoopTurns(sliceMs);
  const views: PersonView[] = [];
  const contributions: PersonContribution[] = [];
  for (const facts of loaded.facts) {
    const view = recomputePerson(facts, rules);
    views.push(view);
    contributions.push(contributionOf(facts, view, rules.timezone));
    await turn();
  }
  return { loaded, views, contributions };
}

/**
 * Rebuilds the store's person mapping, sessions, conversions, credits, analytics rows and rollups from the facts;
 * returns the number of conversions.
 */
async function repairViews(
  q: Query,
  storeId: string,
  personIds: readonly string[],
  groups: Map<string, string[]>,
  rules: StoreRules,
  chunk: number,
): Promise<number> {
  const clientIds = personIds.flatMap((p) => groups.get(p)!);
  await q(
    'repair.clients',
    `update clients c set person_id = m.person_id from unnest($2::text[], $3::text[]) as m(client_id, person_id)
     where c.store_id = $1 and c.client_id = m.client_id and c.person_id <> m.person_id`,
    [storeId, clientIds, personIds.flatMap((p) => groups.get(p)!.map(() => p))],
  );
  for (const table of REBUILT_VIEW_TABLES) {
    await q(`repair.clear_${table}`, `delete from ${table} where store_id = $1`, [storeId]);
  }
  // Every person is loaded and recomputed once: its sessions are rewritten in place, its conversions, credits
  // and analytics rows inserted through the same writers the pipeline uses, and the rollups summed for the end.
  // The next chunk is loaded and recomputed while the current one is written, so that its JavaScript fills the
  // time the database spends on the writes (docs/decisions.md, Operations).
  const rollup = new Map<string, RollupDelta>();
  const analytics = emptyDelta();
  const adRollup = new Map<string, AdRollupSums>();
  let conversions = 0;
  const chunks: string[][] = [];
  for (let i = 0; i < personIds.length; i += chunk) chunks.push(personIds.slice(i, i + chunk));
  let next = chunks.length > 0 ? recomputeChunk(q, storeId, chunks[0]!, groups, rules, REPAIR_SLICE_MS) : undefined;
  for (let c = 0; c < chunks.length; c++) {
    const { loaded, views, contributions } = await next!;
    next =
      c + 1 < chunks.length ? recomputeChunk(q, storeId, chunks[c + 1]!, groups, rules, REPAIR_SLICE_MS) : undefined;
    for (const v of views) conversions += v.conversions.length;
    await besideBackground(next, async () => {
      await writeSessions(
        q,
        storeId,
        loaded.clientIds,
        views.flatMap((v) => v.sessions),
      );
      const diff = await writeConversions(q, storeId, new Map(), views, { cleared: true });
      await writeAnalytics(q, storeId, [], contributions, { into: analytics });
      mergeAdDeltas(adRollup, diff.adDelta);
      for (const [k, d] of diff.delta) addSums(rollup, k, d);
    });
  }
  // The rollups were cleared with the rest: their rows are copied in, not added.
  await applyAttributionDelta(q, storeId, rollup, { cleared: true });
  await applyAnalyticsDelta(q, storeId, analytics, { cleared: true });
  await applyAdRollupDelta(q, storeId, adRollup, { cleared: true });
  await q(
    'repair.spend',
    `insert into ad_spend_daily (store_id, day, platform, channel, source, medium, campaign, spend_micros, impressions, clicks, conv_value_micros)
     select store_id, day, platform, channel, source, medium, campaign, sum(spend_micros), sum(impressions), sum(clicks), sum(conv_value_micros)
     from ad_spend where store_id = $1 group by 1, 2, 3, 4, 5, 6, 7
     having sum(spend_micros) <> 0 or sum(impressions) <> 0 or sum(clicks) <> 0 or sum(conv_value_micros) <> 0`,
    [storeId],
  );
  return conversions;
}
