/**
 * The names under which erasure remembers a person (docs/operations.md, Privacy): each of its clients and each of
 * its identity keys. A message that carries any of them belongs to an erased person: the pipeline drops it instead
 * of storing it again. And the owners under which the pipeline records the stream sequences of the messages it
 * stores, so that erasure can delete them from the stream.
 */
import type { ShopCustomer, ShopOrder } from '../../../contracts/src/pushes';
import { browserClientOfOrder } from '../../../contracts/src/identity';
import type { DecodedFact } from './decode-message';
import {
  type EventFact,
  handoffKey,
  identityKeysOfEvent,
  identityKeysOfOrder,
  normalizeEmail,
  type OrderFact,
  orderClientId,
} from './facts';

export const clientName = (clientId: string): string => `client:${clientId}`;
export const keyName = (key: string): string => `key:${key}`;

/** A customer push is owned by `customer:<id>` (customers are no clients). */
export const customerOwner = (customerId: string): string => `customer:${customerId}`;

/** The names of a person: its clients (order pseudo-clients included) and its identity keys. */
export function namesOfPerson(clientIds: Iterable<string>, keys: Iterable<string>): string[] {
  return [...new Set([...[...clientIds].map(clientName), ...[...keys].map(keyName)])];
}

export function namesOfEvent(fact: EventFact): string[] {
  return [clientName(fact.clientId), ...identityKeysOfEvent(fact).map(keyName)];
}

/** An order's pseudo-client and keys, and the browser client it names with the key it shares with it. */
export function namesOfOrder(fact: OrderFact, order: ShopOrder): string[] {
  const names = [clientName(orderClientId(fact.orderId)), ...identityKeysOfOrder(fact).map(keyName)];
  const browser = browserClientOfOrder(order);
  if (browser) names.push(clientName(browser), keyName(handoffKey(browser)));
  return names;
}

/** A customer push names the person by its customer id and email, as its orders and checkouts would. */
export function namesOfCustomer(customer: ShopCustomer): string[] {
  const names = [keyName(`c:${customer.id}`)];
  const email = normalizeEmail(customer.email);
  if (email) names.push(keyName(`e:${email}`));
  return names;
}

/** Who a stored message belongs to, for finding it again: none for what is no one's (products, ad spend). */
export function ownerOfMessage(d: DecodedFact): string | null {
  switch (d.kind) {
    case 'event':
      return d.event.clientId;
    case 'order':
      return orderClientId(d.order.id);
    case 'customer':
      return customerOwner(d.customer.id);
    case 'link_click':
      return d.click.clientId;
    case 'product':
    case 'ad_spend':
      return null;
  }
}
