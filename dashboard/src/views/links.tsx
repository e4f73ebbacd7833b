/**
 * Links: create a tracking link (link-builder/create) and copy it; the figures of every link over the range
 * (get/link-builder-analysis/list). A dashboard key cannot create links: the API's 403 is shown as it is.
 */
import { useState } from 'preact/hooks';
import { LinkForm } from '../components/link-form';
import { Basis, Show, Table } from '../components/parts';
import { useData } from '../components/use-data';
import { fmtCount, fmtMoney } from '../format';
import { useApp } from '../state';
import type { LinkRecord, Page } from '../types';

export function Links() {
  const { client, selection } = useApp();
  const { range } = selection;
  const [version, setVersion] = useState(0);
  const links = useData(
    () =>
      client.post<Page<LinkRecord>>('get/link-builder-analysis/list', {
        start_date: range.start,
        end_date: range.end,
        page: 1,
        page_size: 100,
      }),
    [client, range.start, range.end, version],
  );

  return (
    <section>
      <h1>Links</h1>
      <LinkForm onCreated={() => setVersion((v) => v + 1)} />
      <h2>Link figures</h2>
      <Basis model={false} goal={false} />
      <Show data={links} empty={(d) => d.records.length === 0}>
        {(d) => (
          <Table
            testid="links-table"
            columns={[
              { label: 'Link', value: (r) => r.tracking_link },
              { label: 'Campaign', value: (r) => `${r.campaign} · ${r.source} / ${r.medium}` },
              { label: 'Clicks', value: (r) => fmtCount(r.clicks), numeric: true },
              { label: 'Visitors', value: (r) => fmtCount(r.total_users), numeric: true },
              { label: 'Purchases', value: (r) => fmtCount(r.purchase), numeric: true },
              { label: 'Revenue', value: (r) => fmtMoney(r.purchase_conversion_value), numeric: true },
            ]}
            rows={d.records}
          />
        )}
      </Show>
    </section>
  );
}
