/**
 * Products: the totals of every product over the range (get/product-analysis/list-sum), the products by revenue
 * (get/product-analysis/list), and for the chosen product its trend (get/product-analysis/trend, by day, week
 * or month as the range allows) and the channels its purchases are credited to under the selected model
 * (get/product-analysis/channel-list). Revenue is the product's share of its purchases' value, refunds
 * deducted (docs/product.md, Analytics).
 */
import { useState } from 'preact/hooks';
import { Chart } from '../components/chart';
import { Basis, Kpi, Show, Table } from '../components/parts';
import { useData } from '../components/use-data';
import { channelName, daysBetween, fmtCount, fmtMoney, fmtPercent, periodStarts } from '../format';
import { useApp } from '../state';
import type {
  Page,
  ProductAnalysisRecord,
  ProductAnalysisSummary,
  ProductChannelRecord,
  ProductTrendPoint,
} from '../types';

const PAGE_SIZE = 20;

const KPIS: Array<{ key: keyof ProductAnalysisSummary; label: string; fmt: (x: number) => string }> = [
  { key: 'revenue', label: 'Product revenue', fmt: fmtMoney },
  { key: 'gross_profit', label: 'Gross profit', fmt: fmtMoney },
  { key: 'purchases', label: 'Purchases holding a product', fmt: fmtCount },
  { key: 'units', label: 'Units sold', fmt: fmtCount },
  { key: 'views', label: 'Product views', fmt: fmtCount },
  { key: 'view_to_cart_rate', label: 'Views to cart', fmt: fmtPercent },
];

const granularityOf = (days: number): 'day' | 'week' | 'month' => (days <= 62 ? 'day' : days <= 200 ? 'week' : 'month');
const nameOf = (p: { title: string; product_id: string }): string => p.title || p.product_id;

export function Products() {
  const { client, selection } = useApp();
  const { range, model } = selection;
  const [page, setPage] = useState(1);
  const [chosen, setChosen] = useState<ProductAnalysisRecord | null>(null);
  const dates = { start_date: range.start, end_date: range.end };
  const sum = useData(
    () => client.post<ProductAnalysisSummary>('get/product-analysis/list-sum', dates),
    [client, range.start, range.end],
  );
  const list = useData(
    () =>
      client.post<Page<ProductAnalysisRecord>>('get/product-analysis/list', { ...dates, page, page_size: PAGE_SIZE }),
    [client, range.start, range.end, page],
  );
  // The chosen product, else the first of the page.
  const product = chosen ?? (list.status === 'ready' ? (list.data.records[0] ?? null) : null);
  const granularity = granularityOf(daysBetween(range.start, range.end));
  const detail = useData(async () => {
    if (!product) return null;
    const ids = [product.product_id];
    const [trend, channels] = await Promise.all([
      client.post<ProductTrendPoint[]>('get/product-analysis/trend', { ...dates, product_ids: ids, granularity }),
      client.post<Page<ProductChannelRecord>>('get/product-analysis/channel-list', {
        ...dates,
        product_ids: ids,
        dimensions: ['channel'],
        model,
        page: 1,
        page_size: 100,
        orders: [{ column: 'conversion_value', order: 'desc' }],
      }),
    ]);
    return { trend, channels: channels.records };
  }, [client, range.start, range.end, model, product?.product_id]);

  return (
    <section>
      <h1>Products</h1>
      <Basis model={false} goal={false} note="purchases by the day of the purchase, views by the day of the view" />
      <Show data={sum}>
        {(s) => (
          <div class="kpis">
            {KPIS.map((k) => (
              <Kpi testid={`product-kpi-${k.key}`} label={k.label} value={k.fmt(s[k.key])} />
            ))}
          </div>
        )}
      </Show>
      <Show data={list} empty={(d) => d.total === 0}>
        {(d) => (
          <>
            <Table
              testid="products-table"
              columns={[
                { label: 'Product', value: (r) => nameOf(r) },
                { label: 'Views', value: (r) => fmtCount(r.views), numeric: true },
                { label: 'Viewers', value: (r) => fmtCount(r.view_users), numeric: true },
                { label: 'Add to cart', value: (r) => fmtCount(r.add_to_cart), numeric: true },
                { label: 'Checkouts', value: (r) => fmtCount(r.checkouts), numeric: true },
                { label: 'Purchases', value: (r) => fmtCount(r.purchases), numeric: true },
                { label: 'Units', value: (r) => fmtCount(r.units), numeric: true },
                { label: 'Revenue', value: (r) => fmtMoney(r.revenue), numeric: true },
                { label: 'Gross profit', value: (r) => fmtMoney(r.gross_profit), numeric: true },
                { label: 'Views to cart', value: (r) => fmtPercent(r.view_to_cart_rate), numeric: true },
                { label: 'Cart to purchase', value: (r) => fmtPercent(r.cart_to_purchase_rate), numeric: true },
              ]}
              rows={d.records}
              onRow={setChosen}
              selected={(r) => r.product_id === product?.product_id}
            />
            <div class="pager">
              <button disabled={page <= 1} onClick={() => setPage(page - 1)}>
                Previous
              </button>
              <span>
                page {page} of {Math.max(1, Math.ceil(d.total / PAGE_SIZE))} ({d.total} products)
              </span>
              <button disabled={page * PAGE_SIZE >= d.total} onClick={() => setPage(page + 1)}>
                Next
              </button>
            </div>
          </>
        )}
      </Show>
      {product ? (
        <>
          <h2 data-testid="product-name">{nameOf(product)}</h2>
          <Show data={detail}>
            {(d) => {
              if (!d) return null;
              const x = periodStarts(range.start, range.end, granularity);
              const at = new Map(d.trend.map((p) => [p.date, p]));
              const values = (k: 'views' | 'add_to_cart' | 'purchases'): number[] =>
                x.map((day) => at.get(day)?.[k] ?? 0);
              return (
                <>
                  <Chart
                    testid="product-trend"
                    title={`Views, add-to-carts and purchases per ${granularity}`}
                    height={200}
                    x={x.map((day) => Date.parse(`${day}T00:00:00Z`) / 1000)}
                    series={[
                      { label: 'Views', values: values('views'), color: '#9ca3af' },
                      { label: 'Add to cart', values: values('add_to_cart'), color: '#2563eb' },
                      { label: 'Purchases', values: values('purchases'), color: '#059669', bars: true },
                    ]}
                  />
                  <h2>Channels credited with its purchases</h2>
                  <Basis goal={false} />
                  {d.channels.length === 0 ? (
                    <div class="state empty">No purchases of this product in these dates.</div>
                  ) : (
                    <Table
                      testid="product-channels-table"
                      columns={[
                        { label: 'Channel', value: (r) => channelName(r.channel) },
                        { label: 'Purchases', value: (r) => fmtCount(r.conversions), numeric: true },
                        { label: 'Revenue', value: (r) => fmtMoney(r.conversion_value), numeric: true },
                        { label: 'Units', value: (r) => fmtCount(r.units), numeric: true },
                      ]}
                      rows={d.channels}
                    />
                  )}
                </>
              );
            }}
          </Show>
        </>
      ) : null}
    </section>
  );
}
