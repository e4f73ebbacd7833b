import { batchItem } from '../../../test/support/batch-items';
import { pageView } from '../../../test/support/journeys';
import { sampleCustomer, sampleProduct } from '../../../test/support/samples';
import { STORE_TOMBSTONE, screenErased, tombstoneDigest } from './pg-erasure-screen';

const at = '2026-01-01T00:00:00Z';
const view = (store: string, client: string) =>
  batchItem(store, 0, 'page_viewed', pageView({ client, at }), Date.parse(at));

describe('screenErased', () => {
  it('drops the messages that carry an erased name of their own store, and keeps the rest in order', () => {
    const items = [
      view('s1', 'gone'),
      view('s1', 'kept'),
      view('s2', 'gone'),
      batchItem('s1', 0, 'push_customer', sampleCustomer({ id: '77', email: 'Gone@Example.com' })),
      batchItem('s1', 0, 'push_product', sampleProduct()),
    ];
    const tombstones = new Map([
      ['s1', new Set([tombstoneDigest('client:gone'), tombstoneDigest('key:e:gone@example.com')])],
    ]);
    const { kept, erased } = screenErased(items, tombstones, () => 'USD');
    expect(erased).toEqual([items[0], items[3]]);
    expect(kept).toEqual([items[1], items[2], items[4]]);
  });

  it("a deleted store's tombstone drops every message of it", () => {
    const items = [view('s1', 'a'), view('s2', 'b')];
    const { kept, erased } = screenErased(items, new Map([['s1', new Set([STORE_TOMBSTONE])]]), () => 'USD');
    expect(erased).toEqual([items[0]]);
    expect(kept).toEqual([items[1]]);
  });

  it('without tombstones everything is kept', () => {
    const items = [view('s1', 'a')];
    expect(screenErased(items, new Map(), () => 'USD')).toEqual({ kept: items, erased: [] });
  });
});
