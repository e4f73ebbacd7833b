/**
 * The identity phase: persons recomputed from the identity links alone, each stored client's person compared
 * with them, and (with `recentOnly`) the persons a range of days can involve.
 */
import { ORDER_CLIENT_PREFIX } from '../../../../contracts/src/identity';
import type { Query } from '../../../../storage/db';
import { personsOfLinks } from '../../domain/identity';
import type { ReportDrift } from './types';

export interface StoreIdentity {
  /** Each person's clients, by person id, as the links join them. */
  groups: Map<string, string[]>;
  /** The persons to recompute, sorted. */
  personIds: string[];
}

/** Every client's person from the links; a stored person that differs is drift. */
export async function reconcileIdentity(q: Query, storeId: string, report: ReportDrift): Promise<StoreIdentity> {
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
    const group = groups.get(p);
    if (group) group.push(c.client_id);
    else groups.set(p, [c.client_id]);
  }
  return { groups, personIds: [...groups.keys()].sort() };
}

/**
 * The persons active since `from` minus the lookback window, or holding a conversion on a day from `from` on:
 * every conversion on a day in the range belongs to one of them.
 */
export async function recentPersons(
  q: Query,
  storeId: string,
  identity: StoreIdentity,
  from: string,
  lookbackDays: number,
): Promise<string[]> {
  const since = new Date(Date.parse(from) - (lookbackDays + 1) * 86_400_000).toISOString();
  const active = await q<{ client_id: string }>(
    'reconcile.active_clients',
    `select distinct client_id from event_facts where store_id = $1 and occurred_at >= $2
     union select $4 || order_id from order_facts where store_id = $1 and created_at >= $2
     union select c.client_id from conversions v join clients c on c.store_id = v.store_id and c.person_id = v.person_id
       where v.store_id = $1 and v.day >= $3::date`,
    [storeId, since, from, ORDER_CLIENT_PREFIX],
  );
  const personOf = new Map<string, string>();
  for (const [p, clients] of identity.groups) for (const c of clients) personOf.set(c, p);
  const scoped = new Set(active.map((a) => personOf.get(a.client_id)).filter((p) => p !== undefined));
  return identity.personIds.filter((p) => scoped.has(p));
}
