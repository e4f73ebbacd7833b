/**
 * Influencers: a tracking link for a creator (link-builder/create with `creator`) to copy and hand over; the
 * creators with their links' figures summed (get/influencer-analysis/list); a creator opens its links
 * (get/influencer-analysis/link-list), each with a copy button. Add-to-carts and purchases are credited to the
 * links under the last-touch model (docs/product.md, Analytics).
 */
import { useState } from 'preact/hooks';
import { CopyButton } from '../components/copy-button';
import { LinkForm } from '../components/link-form';
import { Basis, Show, Table } from '../components/parts';
import { useData } from '../components/use-data';
import { fmtCount, fmtMoney } from '../format';
import { useApp } from '../state';
import type { InfluencerRecord, Page, TrackingLinkRecord } from '../types';

export function Influencers() {
  const { client, selection } = useApp();
  const { range } = selection;
  const [creator, setCreator] = useState<string | null>(null);
  const [version, setVersion] = useState(0);
  const dates = { start_date: range.start, end_date: range.end };
  const creators = useData(
    () => client.post<Page<InfluencerRecord>>('get/influencer-analysis/list', { ...dates, page: 1, page_size: 100 }),
    [client, range.start, range.end, version],
  );
  const links = useData(
    async () =>
      creator == null
        ? null
        : client.post<Page<TrackingLinkRecord>>('get/influencer-analysis/link-list', {
            ...dates,
            creator,
            page: 1,
            page_size: 100,
          }),
    [client, range.start, range.end, creator, version],
  );

  return (
    <section>
      <h1>Influencers</h1>
      <p class="hint">A link for a creator: its visits, carts and purchases count for the creator.</p>
      <LinkForm creatorRequired onCreated={() => setVersion((v) => v + 1)} />
      <h2>Creators</h2>
      <Basis model={false} goal={false} note="add-to-carts and purchases credited under last touch" />
      <Show data={creators} empty={(d) => d.records.length === 0}>
        {(d) => (
          <Table
            testid="creators-table"
            columns={[
              { label: 'Creator', value: (r) => r.creator },
              { label: 'Links', value: (r) => fmtCount(r.links_count), numeric: true },
              { label: 'Clicks', value: (r) => fmtCount(r.clicks), numeric: true },
              { label: 'Visitors', value: (r) => fmtCount(r.total_users), numeric: true },
              { label: 'New visitors', value: (r) => fmtCount(r.new_users), numeric: true },
              { label: 'Add to cart', value: (r) => fmtCount(r.add_to_cart), numeric: true },
              { label: 'Purchases', value: (r) => fmtCount(r.purchase), numeric: true },
              { label: 'Revenue', value: (r) => fmtMoney(r.purchase_conversion_value), numeric: true },
              { label: 'New-customer purchases', value: (r) => fmtCount(r.new_customer_purchases), numeric: true },
            ]}
            rows={d.records}
            onRow={(r) => setCreator(r.creator === creator ? null : r.creator)}
            selected={(r) => r.creator === creator}
          />
        )}
      </Show>
      {creator != null ? (
        <>
          <h2>Links of {creator}</h2>
          <Show data={links} empty={(d) => !d || d.records.length === 0}>
            {(d) => (
              <Table
                testid="creator-links-table"
                columns={[
                  { label: 'Link', value: (r) => r.tracking_link },
                  { label: '', value: (r) => <CopyButton text={r.tracking_link} /> },
                  { label: 'Landing page', value: (r) => r.landing_page },
                  { label: 'Campaign', value: (r) => `${r.campaign} · ${r.source} / ${r.medium}` },
                  { label: 'Clicks', value: (r) => fmtCount(r.clicks), numeric: true },
                  { label: 'Visitors', value: (r) => fmtCount(r.total_users), numeric: true },
                  { label: 'Purchases', value: (r) => fmtCount(r.purchase), numeric: true },
                  { label: 'Revenue', value: (r) => fmtMoney(r.purchase_conversion_value), numeric: true },
                ]}
                rows={d?.records ?? []}
              />
            )}
          </Show>
        </>
      ) : (
        <p class="hint">Choose a creator to see and copy its links.</p>
      )}
    </section>
  );
}
