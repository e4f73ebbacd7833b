/**
 * Orders and journeys: the recent attributed orders of the range (get/order/list) with their first and last
 * touch (order/attribution-touch); an order opens its journey timeline (order/event).
 */
import { useState } from 'preact/hooks';
import { Basis, Show, Table } from '../components/parts';
import { useData } from '../components/use-data';
import { fmtMoney, fmtTouch } from '../format';
import { useApp } from '../state';
import type { Journey, OrderRecord, OrderTouchpoints, Page } from '../types';

const PAGE_SIZE = 20;

export function Orders() {
  const { client, selection } = useApp();
  const { range } = selection;
  const [page, setPage] = useState(1);
  const [open, setOpen] = useState<string | null>(null);
  const orders = useData(async () => {
    const list = await client.post<Page<OrderRecord>>('get/order/list', {
      start_date: range.start,
      end_date: range.end,
      page,
      page_size: PAGE_SIZE,
    });
    const touches = list.records.length
      ? await client.post<OrderTouchpoints[]>('order/attribution-touch', {
          order_ids: list.records.map((r) => r.order_id),
        })
      : [];
    const byId = new Map(touches.map((t) => [t.order_id, t]));
    return { ...list, rows: list.records.map((r) => ({ ...r, touch: byId.get(r.order_id) })) };
  }, [client, range.start, range.end, page]);
  const journey = useData(
    async () => (open ? client.post<Journey>('order/event', { order_id: open, page: 1, page_size: 100 }) : null),
    [client, open],
  );
  return (
    <section>
      <h1>Orders and journeys</h1>
      <Basis model={false} goal={false} note="purchases; first and last touch as credited" />
      <Show data={orders} empty={(d) => d.total === 0}>
        {(d) => (
          <>
            <Table
              testid="orders-table"
              columns={[
                { label: 'Order', value: (r) => r.order_id },
                { label: 'Placed', value: (r) => r.created_at },
                { label: 'Value', value: (r) => fmtMoney(r.value), numeric: true },
                { label: 'Customer', value: (r) => (r.is_new_customer ? 'new' : 'returning') },
                { label: 'First touch', value: (r) => fmtTouch(r.touch?.first_touchpoint) },
                { label: 'Last touch', value: (r) => fmtTouch(r.touch?.last_touchpoint) },
              ]}
              rows={d.rows}
              onRow={(r) => setOpen(r.order_id === open ? null : r.order_id)}
              selected={(r) => r.order_id === open}
            />
            <div class="pager">
              <button disabled={page <= 1} onClick={() => setPage(page - 1)}>
                Newer
              </button>
              <span>
                page {page} of {Math.max(1, Math.ceil(d.total / PAGE_SIZE))} ({d.total} orders)
              </span>
              <button disabled={page * PAGE_SIZE >= d.total} onClick={() => setPage(page + 1)}>
                Older
              </button>
            </div>
          </>
        )}
      </Show>
      {open ? (
        <>
          <h2>Journey of order {open}</h2>
          <Show data={journey} empty={(j) => !j || j.events.length === 0}>
            {(j) => (
              <ol class="timeline" data-testid="journey">
                {(j?.events ?? []).map((e) => (
                  <li data-event-id={e.event_id}>
                    <time>{e.event_at}</time> <strong class="event-type">{e.event_type}</strong>{' '}
                    <span class="muted">
                      {e.event_source} / {e.event_medium}
                      {e.event_campaign ? ` · ${e.event_campaign}` : ''}
                    </span>
                    <div class="url">{e.event_page_url}</div>
                  </li>
                ))}
              </ol>
            )}
          </Show>
        </>
      ) : (
        <p class="hint">Choose an order to see its journey.</p>
      )}
    </section>
  );
}
