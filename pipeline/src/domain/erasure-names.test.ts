import type { ShopCustomer, ShopOrder } from '../../../contracts/src/pushes';
import type { EventFact, OrderFact } from './facts';
import {
  customerOwner,
  namesOfCustomer,
  namesOfEvent,
  namesOfOrder,
  namesOfPerson,
  ownerOfMessage,
} from './erasure-names';

const fact = (over: Partial<EventFact>): EventFact => ({
  eventId: 'e1',
  clientId: 'browser-1',
  name: 'page_viewed',
  at: 0,
  pageUrl: 'https://shop.example/',
  referrer: '',
  email: null,
  customerId: null,
  orderId: null,
  checkoutToken: null,
  isFirstOrder: null,
  valueMicros: null,
  valueOrig: null,
  currencyOrig: null,
  lines: [],
  items: [],
  ...over,
});

const orderFact = (over: Partial<OrderFact>): OrderFact => ({
  orderId: '9007199254740993',
  createdAt: 0,
  cancelled: false,
  email: null,
  customerId: null,
  valueMicros: 0,
  refundedMicros: 0,
  valueOrig: 0,
  currencyOrig: 'USD',
  landingSite: '',
  referringSite: '',
  checkoutToken: null,
  lines: [],
  items: [],
  ...over,
});

describe('erasure names', () => {
  it('a page view names its client only; a checkout its client and every identity key', () => {
    expect(namesOfEvent(fact({}))).toEqual(['client:browser-1']);
    expect(
      namesOfEvent(
        fact({
          name: 'checkout_completed',
          email: 'ann@example.com',
          customerId: '42',
          orderId: '7',
          checkoutToken: 'tk',
        }),
      ),
    ).toEqual(['client:browser-1', 'key:e:ann@example.com', 'key:c:42', 'key:o:7', 'key:k:tk']);
  });

  it('an order names its pseudo-client, its keys, and the browser client of its cart with their shared key', () => {
    const order = { note_attributes: [{ name: '_oa_client_id', value: 'browser-9' }] } as unknown as ShopOrder;
    expect(namesOfOrder(orderFact({ email: 'ann@example.com' }), order)).toEqual([
      'client:order:9007199254740993',
      'key:o:9007199254740993',
      'key:e:ann@example.com',
      'client:browser-9',
      'key:b:browser-9',
    ]);
    expect(namesOfOrder(orderFact({}), {} as ShopOrder)).toEqual([
      'client:order:9007199254740993',
      'key:o:9007199254740993',
    ]);
  });

  it('a customer push names the customer id and the email, compared as identity compares them', () => {
    const customer = { id: '9007199254740993', email: ' Ann@Example.COM ' } as ShopCustomer;
    expect(namesOfCustomer(customer)).toEqual(['key:c:9007199254740993', 'key:e:ann@example.com']);
    expect(namesOfCustomer({ id: '5', email: null } as ShopCustomer)).toEqual(['key:c:5']);
  });

  it('a person is each of its clients and keys, once', () => {
    expect(namesOfPerson(['a', 'order:1', 'a'], ['e:x@y.z', 'o:1'])).toEqual([
      'client:a',
      'client:order:1',
      'key:e:x@y.z',
      'key:o:1',
    ]);
  });

  it('messages are owned by the client they belong to; products and ad spend by no one', () => {
    expect(ownerOfMessage({ kind: 'order', storeId: 's', order: { id: '12' } as ShopOrder })).toBe('order:12');
    expect(ownerOfMessage({ kind: 'customer', storeId: 's', customer: { id: '12' } as ShopCustomer })).toBe(
      customerOwner('12'),
    );
    expect(
      ownerOfMessage({
        kind: 'link_click',
        storeId: 's',
        click: { code: 'c', clickId: 'k', clientId: 'browser-3', at: '', ip: '', userAgent: '', referrer: '' },
      }),
    ).toBe('browser-3');
    expect(ownerOfMessage({ kind: 'ad_spend', storeId: 's', rows: [] })).toBeNull();
  });
});
