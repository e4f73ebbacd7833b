/**
 * Channels and the drill-down below them, under the selected model and goal: get-list by channel; a channel
 * opens its campaigns. Where the server has the ad report, a paid channel's campaigns are the ad report's (the
 * platform's names and ids), and a campaign opens its ad sets, an ad set its ads, an ad the customers behind
 * it (views/channel-ads.tsx); a channel without ads shows get-list's campaigns, each opening the orders
 * credited to it.
 */
import { useState } from 'preact/hooks';
import { Basis, type Column, Show, Table } from '../components/parts';
import { useData } from '../components/use-data';
import { channelName, fmtCount, fmtMoney, fmtRatio } from '../format';
import { useApp } from '../state';
import type { AdFilter, AdRecord, Page, ReportRecord } from '../types';
import { AdCustomers, AdLevelTable, CampaignOrders, rowFilters } from './channel-ads';

const numbers: Array<Column<ReportRecord>> = [
  { label: 'Conversions', value: (r) => fmtCount(r.conversions), numeric: true },
  { label: 'Revenue', value: (r) => fmtMoney(r.conversion_value), numeric: true },
  { label: 'Spend', value: (r) => fmtMoney(r.spend), numeric: true },
  { label: 'ROAS', value: (r) => fmtRatio(r.roas), numeric: true },
  { label: 'CPA', value: (r) => fmtMoney(r.cpa), numeric: true },
  { label: 'Net profit', value: (r) => fmtMoney(r.net_profit), numeric: true },
];

/** Where the drill-down stands: each level's chosen row, deeper ones cleared when a level changes. */
interface Path {
  channel: string | null;
  campaign: AdRecord | null;
  adSet: AdRecord | null;
  ad: AdRecord | null;
  /** A campaign of get-list (a channel without ads). */
  listCampaign: string | null;
}
const NONE: Path = { channel: null, campaign: null, adSet: null, ad: null, listCampaign: null };

export function Channels() {
  const { client, selection, operations } = useApp();
  const { range, model, goal } = selection;
  const [path, setPath] = useState<Path>(NONE);
  const hasAds = operations.has('get/ad-analysis/list');
  const base = { start_date: range.start, end_date: range.end, model, goal, page: 1, page_size: 100 };
  const orders = [{ column: 'conversion_value', order: 'desc' }];
  const channels = useData(async () => {
    const [list, paid] = await Promise.all([
      client.post<Page<ReportRecord>>('all-attribution/get-list', { ...base, dimensions: ['channel'], orders }),
      // The channels the ad report has rows for: their campaigns open ad sets and ads.
      hasAds
        ? client.post<Page<AdRecord>>('get/ad-analysis/list', { ...base, dimensions: ['channel'] })
        : Promise.resolve(null),
    ]);
    return { list, paid: new Set(paid?.records.map((r) => r.channel)) };
  }, [client, range.start, range.end, model, goal, hasAds]);
  const channel = path.channel;
  // Unknown (null) until the channels are in.
  const paid = channel == null || channels.status !== 'ready' ? null : channels.data.paid.has(channel);
  const campaigns = useData(
    async () =>
      channel == null || paid !== false
        ? null
        : (
            await client.post<Page<ReportRecord>>('all-attribution/get-list', {
              ...base,
              dimensions: ['channel', 'campaign'],
              orders,
            })
          ).records.filter((r) => r.channel === channel),
    [client, range.start, range.end, model, goal, channel, paid],
  );
  const channelFilter: AdFilter[] = channel == null ? [] : [{ key: 'channel', operator: 'eq', value: channel }];
  const campaignFilters = path.campaign ? [...channelFilter, ...rowFilters('campaign', path.campaign)] : [];
  const adSetFilters = path.adSet ? [...campaignFilters, ...rowFilters('ad_set', path.adSet)] : [];
  const adFilters = path.ad ? [...adSetFilters, ...rowFilters('ad', path.ad)] : [];

  return (
    <section>
      <h1>Channels</h1>
      <Basis />
      <Show data={channels} empty={(d) => d.list.records.length === 0}>
        {(d) => (
          <Table
            testid="channels-table"
            columns={[{ label: 'Channel', value: (r) => channelName(r.channel) }, ...numbers]}
            rows={d.list.records}
            onRow={(r) => setPath({ ...NONE, channel: r.channel === channel ? null : r.channel })}
            selected={(r) => r.channel === channel}
          />
        )}
      </Show>
      {channel == null ? <p class="hint">Choose a channel to see its campaigns.</p> : null}
      {channel != null && paid === true ? (
        <>
          <h2>Campaigns of {channelName(channel)}</h2>
          <AdLevelTable
            level="campaign"
            filters={channelFilter}
            selected={path.campaign}
            onRow={(campaign) => setPath({ ...NONE, channel, campaign })}
          />
          {path.campaign ? (
            <>
              <h2>Ad sets of {path.campaign.campaign}</h2>
              <AdLevelTable
                level="ad_set"
                filters={campaignFilters}
                selected={path.adSet}
                onRow={(adSet) => setPath({ ...path, adSet, ad: null })}
              />
            </>
          ) : (
            <p class="hint">Choose a campaign to see its ad sets.</p>
          )}
          {path.adSet ? (
            <>
              <h2>Ads of {path.adSet.ad_set || 'the ad set'}</h2>
              <AdLevelTable
                level="ad"
                filters={adSetFilters}
                selected={path.ad}
                onRow={(ad) => setPath({ ...path, ad })}
              />
            </>
          ) : null}
          {path.ad ? (
            <>
              <h2>Customers behind {path.ad.ad || 'the ad'}</h2>
              <AdCustomers filters={adFilters} />
            </>
          ) : path.adSet ? (
            <p class="hint">Choose an ad to see the customers behind it.</p>
          ) : null}
        </>
      ) : null}
      {channel != null && paid === false ? (
        <>
          <h2>Campaigns of {channelName(channel)}</h2>
          <Show data={campaigns} empty={(d) => !d || d.length === 0}>
            {(d) => (
              <Table
                testid="campaigns-table"
                columns={[{ label: 'Campaign', value: (r) => r.campaign || '(none)' }, ...numbers]}
                rows={d ?? []}
                onRow={
                  operations.has('order/campaign-list')
                    ? (r) =>
                        r.campaign &&
                        setPath({ ...path, listCampaign: r.campaign === path.listCampaign ? null : r.campaign })
                    : undefined
                }
                selected={(r) => r.campaign === path.listCampaign}
              />
            )}
          </Show>
          {path.listCampaign ? (
            <>
              <h2>Orders credited to {path.listCampaign}</h2>
              <CampaignOrders channel={channel} campaign={path.listCampaign} />
            </>
          ) : null}
        </>
      ) : null}
    </section>
  );
}
