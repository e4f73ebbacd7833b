/**
 * The deeper levels of the channels view (docs/product.md, Ads attribution): a paid channel's campaigns, a
 * campaign's ad sets and an ad set's ads from the ad report (get/ad-analysis/list, the level's total from
 * get/ad-analysis/list-sum as its first row), the customers behind an ad (get/ad-analysis/customer-list), and
 * the orders credited to a campaign of a channel without ads (order/campaign-list). A row is named to the
 * level below by filters: a campaign, ad set or ad by its id and its name, as the ad report groups them.
 */
import { useState } from 'preact/hooks';
import { type Column, Show, Table } from '../components/parts';
import { useData } from '../components/use-data';
import { fmtCount, fmtMoney, fmtPercent, fmtRatio, fmtTouch } from '../format';
import { useApp } from '../state';
import type { AdCustomerRecord, AdFilter, AdRecord, AdSummary, CampaignOrderRecord, Page } from '../types';

export type AdLevel = 'campaign' | 'ad_set' | 'ad';

const DIMENSIONS: Record<AdLevel, string[]> = { campaign: ['platform', 'campaign'], ad_set: ['ad_set'], ad: ['ad'] };
const LEVEL_NAME: Record<AdLevel, string> = { campaign: 'Campaign', ad_set: 'Ad set', ad: 'Ad' };
const PLURAL: Record<AdLevel, string> = { campaign: 'campaigns', ad_set: 'ad sets', ad: 'ads' };
const PAGE_SIZE = 100;

const idOf = (level: AdLevel, r: AdRecord): string =>
  level === 'campaign' ? r.campaign_id : level === 'ad_set' ? r.ad_set_id : r.ad_id;

/** The filters that name a row of a level: its id and name (and a campaign's platform). */
export function rowFilters(level: AdLevel, r: AdRecord): AdFilter[] {
  const filters: AdFilter[] = [
    { key: `${level}_id`, operator: 'eq', value: idOf(level, r) },
    { key: level, operator: 'eq', value: r[level] },
  ];
  return level === 'campaign' ? [{ key: 'platform', operator: 'eq', value: r.platform }, ...filters] : filters;
}

/** The same row of a level, whatever the model (ids and names do not depend on it). */
export const sameRow = (level: AdLevel, a: AdRecord | null, b: AdRecord): boolean =>
  a != null && idOf(level, a) === idOf(level, b) && a[level] === b[level] && a.platform === b.platform;

const FIGURES: Array<Column<AdSummary>> = [
  { label: 'Spend', value: (r) => fmtMoney(r.spend), numeric: true },
  { label: 'Impressions', value: (r) => fmtCount(r.impressions), numeric: true },
  { label: 'Clicks', value: (r) => fmtCount(r.clicks), numeric: true },
  { label: 'CTR', value: (r) => fmtPercent(r.ctr), numeric: true },
  { label: 'Conversions', value: (r) => fmtCount(r.conversions), numeric: true },
  { label: 'Revenue', value: (r) => fmtMoney(r.conversion_value), numeric: true },
  { label: 'ROAS', value: (r) => fmtRatio(r.roas), numeric: true },
  { label: 'CPA', value: (r) => fmtMoney(r.cpa), numeric: true },
];

/** A row of a level's table: the level's total (no record) or one of its records. */
type Row = AdSummary & { record?: AdRecord };

/** One level of the ad report under the filters of the rows above it, its total first. */
export function AdLevelTable(props: {
  level: AdLevel;
  filters: AdFilter[];
  selected: AdRecord | null;
  onRow: (r: AdRecord | null) => void;
}) {
  const { client, selection } = useApp();
  const { range, model, goal } = selection;
  const { level, filters } = props;
  const body = {
    start_date: range.start,
    end_date: range.end,
    model,
    goal,
    dimensions: DIMENSIONS[level],
    filters,
  };
  const data = useData(async () => {
    const [sum, list] = await Promise.all([
      client.post<AdSummary>('get/ad-analysis/list-sum', body),
      client.post<Page<AdRecord>>('get/ad-analysis/list', {
        ...body,
        page: 1,
        page_size: PAGE_SIZE,
        orders: [{ column: 'conversion_value', order: 'desc' }],
      }),
    ]);
    return { sum, list };
  }, [client, range.start, range.end, model, goal, JSON.stringify(filters), level]);
  const name = (r: AdRecord): string => r[level] || `(unnamed${idOf(level, r) ? ` ${idOf(level, r)}` : ''})`;
  return (
    <Show data={data} empty={(d) => d.list.total === 0}>
      {({ sum, list }) => (
        <>
          <Table<Row>
            testid={`ad-${level}-table`}
            columns={[
              {
                label: LEVEL_NAME[level],
                value: (r: Row) => (r.record ? name(r.record) : <strong>All {PLURAL[level]}</strong>),
              },
              ...(level === 'campaign' ? [{ label: 'Platform', value: (r: Row) => r.record?.platform ?? '' }] : []),
              ...FIGURES,
            ]}
            rows={[sum, ...list.records.map((r): Row => ({ ...r, record: r }))]}
            onRow={(r) => r.record && props.onRow(sameRow(level, props.selected, r.record) ? null : r.record)}
            selected={(r) => r.record != null && sameRow(level, props.selected, r.record)}
          />
          {list.total > list.records.length ? (
            <p class="hint">
              The {list.records.length} with the most revenue of {list.total}.
            </p>
          ) : null}
        </>
      )}
    </Show>
  );
}

/** The converting customers behind a row of the ad report, newest first. */
export function AdCustomers(props: { filters: AdFilter[] }) {
  const { client, selection } = useApp();
  const { range, model, goal } = selection;
  const [page, setPage] = useState(1);
  const data = useData(
    () =>
      client.post<Page<AdCustomerRecord>>('get/ad-analysis/customer-list', {
        start_date: range.start,
        end_date: range.end,
        model,
        goal,
        dimensions: ['ad'],
        filters: props.filters,
        page,
        page_size: 20,
      }),
    [client, range.start, range.end, model, goal, JSON.stringify(props.filters), page],
  );
  return (
    <Show data={data} empty={(d) => d.total === 0}>
      {(d) => (
        <>
          <Table
            testid="ad-customers-table"
            columns={[
              { label: 'Converted', value: (r) => r.converted_at },
              { label: 'Order', value: (r) => r.order_id },
              {
                label: 'Customer',
                value: (r) => [r.first_name, r.last_name].join(' ').trim() || r.email || r.customer_id || '–',
              },
              { label: 'Email', value: (r) => r.email || '–' },
              { label: 'Credit', value: (r) => fmtPercent(r.credit), numeric: true },
              { label: 'Credited value', value: (r) => fmtMoney(r.conversion_value), numeric: true },
              { label: 'Order value', value: (r) => fmtMoney(r.order_value), numeric: true },
              { label: 'Customer was', value: (r) => (r.new_customer ? 'new' : 'returning') },
              { label: 'First touch', value: (r) => fmtTouch(r.first_touchpoint) },
              { label: 'Last touch', value: (r) => fmtTouch(r.last_touchpoint) },
            ]}
            rows={d.records}
          />
          <Pager page={page} total={d.total} onPage={setPage} noun="customers" />
        </>
      )}
    </Show>
  );
}

/** The conversions credited to a campaign of a channel (any touchpoint of it, paid or not), newest first. */
export function CampaignOrders(props: { channel: string; campaign: string }) {
  const { client, selection } = useApp();
  const { range, model, goal } = selection;
  const [page, setPage] = useState(1);
  const data = useData(
    () =>
      client.post<Page<CampaignOrderRecord>>('order/campaign-list', {
        start_date: range.start,
        end_date: range.end,
        campaign: props.campaign,
        channel: props.channel,
        model,
        goal,
        page,
        page_size: 20,
      }),
    [client, range.start, range.end, model, goal, props.channel, props.campaign, page],
  );
  return (
    <Show data={data} empty={(d) => d.total === 0}>
      {(d) => (
        <>
          <Table
            testid="campaign-orders-table"
            columns={[
              { label: 'Placed', value: (r) => r.created_at },
              { label: 'Order', value: (r) => r.order_id },
              { label: 'Customer', value: (r) => r.email || r.customer_id || '–' },
              { label: 'Credit', value: (r) => fmtPercent(r.credit), numeric: true },
              { label: 'Credited value', value: (r) => fmtMoney(r.attributed_value), numeric: true },
              { label: 'Order value', value: (r) => fmtMoney(r.total_price), numeric: true },
              { label: 'Touchpoints', value: (r) => fmtCount(r.touchpoints_count), numeric: true },
              { label: 'First touch', value: (r) => fmtTouch(r.first_touchpoint) },
              { label: 'Last touch', value: (r) => fmtTouch(r.last_touchpoint) },
            ]}
            rows={d.records}
          />
          <Pager page={page} total={d.total} onPage={setPage} noun="orders" />
        </>
      )}
    </Show>
  );
}

function Pager(props: { page: number; total: number; noun: string; onPage: (p: number) => void }) {
  const pages = Math.max(1, Math.ceil(props.total / 20));
  if (pages === 1) return <p class="hint">{`${props.total} ${props.noun}`}</p>;
  return (
    <div class="pager">
      <button disabled={props.page <= 1} onClick={() => props.onPage(props.page - 1)}>
        Newer
      </button>
      <span>
        page {props.page} of {pages} ({props.total} {props.noun})
      </span>
      <button disabled={props.page >= pages} onClick={() => props.onPage(props.page + 1)}>
        Older
      </button>
    </div>
  );
}
