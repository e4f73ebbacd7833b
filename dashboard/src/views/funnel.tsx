/**
 * Funnel and landing pages: the web funnel over every session of the range (get/web-analysis/list-sum) as step
 * bars and as the first row of the table, then one row per value of a chosen dimension (get/web-analysis/list);
 * the landing pages (get/web-analysis/list by landing_page), a page or a path prefix opening its event summary
 * (get/landing-page/event-summary). Visitors are distinct persons; purchases and revenue are credited under the
 * last-touch model whatever model is selected (docs/product.md, Analytics).
 */
import { useState } from 'preact/hooks';
import { Basis, type Column, Show, Table } from '../components/parts';
import { useData } from '../components/use-data';
import { channelName, fmtCount, fmtMoney, fmtPercent } from '../format';
import { useApp } from '../state';
import type { LandingPageSummary, Page, WebAnalysisDimension, WebAnalysisRecord, WebAnalysisSummary } from '../types';

const GROUPS: Array<{ code: WebAnalysisDimension; name: string }> = [
  { code: 'channel', name: 'Channel' },
  { code: 'source', name: 'Source' },
  { code: 'medium', name: 'Medium' },
  { code: 'campaign', name: 'Campaign' },
  { code: 'landing_page', name: 'Landing page' },
];

/** The funnel's steps: persons who reached each one (a step counts the later ones too, so it never grows). */
const STEPS: Array<{ key: keyof WebAnalysisSummary; label: string }> = [
  { key: 'unique_users', label: 'Visitors' },
  { key: 'product_view_users', label: 'Viewed a product' },
  { key: 'atc_users', label: 'Added to cart' },
  { key: 'checkout_users', label: 'Started checkout' },
  { key: 'payment_info_users', label: 'Entered payment info' },
  { key: 'purchase_users', label: 'Purchased' },
];

const FIGURES: Array<Column<WebAnalysisSummary>> = [
  { label: 'Visitors', value: (r) => fmtCount(r.unique_users), numeric: true },
  { label: 'New', value: (r) => fmtCount(r.new_users), numeric: true },
  { label: 'Sessions', value: (r) => fmtCount(r.total_sessions), numeric: true },
  { label: 'Engaged', value: (r) => fmtPercent(r.engagement_rate), numeric: true },
  ...STEPS.slice(1).map((s): Column<WebAnalysisSummary> => ({
    label: s.label,
    value: (r) => fmtCount(r[s.key]),
    numeric: true,
  })),
  { label: 'Purchase rate', value: (r) => fmtPercent(r.purchase_rate), numeric: true },
  { label: 'Purchases', value: (r) => fmtCount(r.purchases), numeric: true },
  { label: 'Revenue', value: (r) => fmtMoney(r.revenue), numeric: true },
  { label: 'Spend', value: (r) => fmtMoney(r.spend), numeric: true },
];

const LIST_SIZE = 100;

/** A row of the funnel table: the whole funnel (no name) or one group's. */
type Row = WebAnalysisSummary & { name?: string };

function Steps(props: { sum: WebAnalysisSummary }) {
  const top = props.sum.unique_users;
  return (
    <div class="steps" data-testid="funnel-steps">
      {STEPS.map((s) => {
        const n = props.sum[s.key];
        return (
          <div class="step">
            <span class="step-label">{s.label}</span>
            <span class="step-bar">
              <span style={{ width: `${top ? (100 * n) / top : 0}%` }} />
            </span>
            <span class="step-value num">
              {fmtCount(n)} <span class="muted">{top ? fmtPercent(n / top) : ''}</span>
            </span>
          </div>
        );
      })}
    </div>
  );
}

export function Funnel() {
  const { client, selection } = useApp();
  const { range } = selection;
  const [group, setGroup] = useState<WebAnalysisDimension>('channel');
  const dates = { start_date: range.start, end_date: range.end };
  const funnel = useData(async () => {
    const [sum, list] = await Promise.all([
      client.post<WebAnalysisSummary>('get/web-analysis/list-sum', dates),
      client.post<Page<WebAnalysisRecord>>('get/web-analysis/list', {
        ...dates,
        dimensions: [group],
        page: 1,
        page_size: LIST_SIZE,
      }),
    ]);
    return { sum, list };
  }, [client, range.start, range.end, group]);
  const groupName = GROUPS.find((g) => g.code === group)!.name;

  return (
    <section>
      <h1>Funnel and landing pages</h1>
      <Basis model={false} goal={false} note="visitors are distinct persons; purchases credited under last touch" />
      <Show data={funnel} empty={(d) => d.sum.total_sessions === 0}>
        {({ sum, list }) => (
          <>
            <Steps sum={sum} />
            <label class="inline">
              Rows by{' '}
              <select
                data-testid="funnel-group"
                value={group}
                onChange={(e) => setGroup((e.target as HTMLSelectElement).value as WebAnalysisDimension)}
              >
                {GROUPS.map((g) => (
                  <option value={g.code}>{g.name}</option>
                ))}
              </select>
            </label>
            <Table
              testid="funnel-table"
              columns={[{ label: groupName, value: (r: Row) => r.name ?? <strong>All sessions</strong> }, ...FIGURES]}
              rows={[
                sum,
                ...list.records.map((r): Row => ({
                  ...r,
                  name: group === 'channel' ? channelName(r.channel) : r[group] || '(none)',
                })),
              ]}
            />
            {list.total > list.records.length ? (
              <p class="hint">
                The {list.records.length} largest of {list.total} {groupName.toLowerCase()} values.
              </p>
            ) : null}
          </>
        )}
      </Show>
      <LandingPages />
    </section>
  );
}

/** The landing pages by visitors; one of them, or a typed path or prefix (`/products/*`), opens its events. */
function LandingPages() {
  const { client, selection } = useApp();
  const { range } = selection;
  const [typed, setTyped] = useState('');
  const [page, setPage] = useState<string | null>(null);
  const dates = { start_date: range.start, end_date: range.end };
  const pages = useData(
    () =>
      client.post<Page<WebAnalysisRecord>>('get/web-analysis/list', {
        ...dates,
        dimensions: ['landing_page'],
        page: 1,
        page_size: 20,
      }),
    [client, range.start, range.end],
  );
  const summary = useData(
    async () =>
      page ? client.post<LandingPageSummary>('get/landing-page/event-summary', { ...dates, landing_page: page }) : null,
    [client, range.start, range.end, page],
  );
  const open = (p: string): void => {
    setTyped(p);
    setPage(p);
  };
  return (
    <>
      <h2>Landing pages</h2>
      <Show data={pages} empty={(d) => d.records.length === 0}>
        {(d) => (
          <Table
            testid="landing-table"
            columns={[
              { label: 'Landing page', value: (r) => r.landing_page || '(none)' },
              { label: 'Visitors', value: (r) => fmtCount(r.unique_users), numeric: true },
              { label: 'Sessions', value: (r) => fmtCount(r.total_sessions), numeric: true },
              { label: 'Bounce rate', value: (r) => fmtPercent(r.bounce_rate), numeric: true },
              { label: 'Added to cart', value: (r) => fmtCount(r.atc_users), numeric: true },
              { label: 'Purchase rate', value: (r) => fmtPercent(r.purchase_rate), numeric: true },
              { label: 'Revenue', value: (r) => fmtMoney(r.revenue), numeric: true },
            ]}
            rows={d.records}
            onRow={(r) => r.landing_page.startsWith('/') && open(r.landing_page)}
            selected={(r) => r.landing_page === page}
          />
        )}
      </Show>
      <form
        class="inline-form"
        onSubmit={(e) => {
          e.preventDefault();
          if (typed.trim()) setPage(typed.trim());
        }}
      >
        <label class="inline">
          Events of
          <input
            name="landing_page"
            data-testid="landing-input"
            placeholder="/products/* or /collections/summer"
            value={typed}
            onInput={(e) => setTyped((e.target as HTMLInputElement).value)}
          />
        </label>
        <button type="submit">Show</button>
      </form>
      {page ? (
        <Show data={summary} empty={(s) => !s || s.visitors === 0}>
          {(s) =>
            s ? (
              <>
                <p class="basis" data-testid="landing-summary">
                  {s.landing_page}: {fmtCount(s.visitors)} visitors in {fmtCount(s.sessions)} sessions
                </p>
                <Table
                  testid="landing-events-table"
                  columns={[
                    { label: 'Event', value: (e) => e.event },
                    { label: 'Visitors', value: (e) => fmtCount(e.users), numeric: true },
                    { label: 'Events', value: (e) => fmtCount(e.count), numeric: true },
                    { label: 'Of visitors', value: (e) => fmtPercent(e.rate), numeric: true },
                  ]}
                  rows={s.events}
                />
              </>
            ) : null
          }
        </Show>
      ) : (
        <p class="hint">Choose a landing page, or type a path (a trailing * takes every path under it).</p>
      )}
    </>
  );
}
