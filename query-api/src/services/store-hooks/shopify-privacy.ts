/**
 * Shopify's mandatory privacy webhooks as privacy requests (docs/operations.md, Privacy): `customers/redact`
 * erases the customer (by id, email and the orders it lists), `customers/data_request` exports it,
 * `shop/redact` deletes the store. Pure: ids stay exact strings (Shopify's exceed 2^53).
 */
import { normalizedEmail, type PrivacySubject } from '../../../../contracts/src/privacy';
import { idText, isObject } from './types';

export type PrivacyHookRequest = { kind: 'erase' | 'export'; subject: PrivacySubject } | { kind: 'delete_store' };

export type PrivacyHookMapping = PrivacyHookRequest | { kind: 'invalid'; field: string; message: string };

function orderIdsOf(list: unknown, field: string): string[] | { field: string; message: string } {
  if (list === undefined || list === null) return [];
  if (!Array.isArray(list)) return { field, message: 'must be an array of order ids' };
  const ids = list.map(idText);
  const bad = ids.findIndex((id) => id === null);
  if (bad >= 0) return { field: `${field}[${bad}]`, message: 'must be an integer or a string of digits' };
  return ids as string[];
}

export function shopifyPrivacyRequest(topic: string, body: unknown): PrivacyHookMapping {
  if (!isObject(body)) return { kind: 'invalid', field: 'body', message: 'must be a JSON object' };
  if (topic === 'shop/redact') return { kind: 'delete_store' };
  const kind = topic === 'customers/redact' ? 'erase' : 'export';
  const customer = body.customer;
  if (customer !== undefined && customer !== null && !isObject(customer))
    return { kind: 'invalid', field: 'customer', message: 'must be an object' };
  const subject: PrivacySubject = { emails: [], customerIds: [], clientIds: [], orderIds: [] };
  if (isObject(customer)) {
    if (customer.id !== undefined && customer.id !== null) {
      const id = idText(customer.id);
      if (!id) return { kind: 'invalid', field: 'customer.id', message: 'must be an integer or a string of digits' };
      subject.customerIds.push(id);
    }
    if (typeof customer.email === 'string' && customer.email.trim())
      subject.emails.push(normalizedEmail(customer.email));
  }
  const listField = kind === 'erase' ? 'orders_to_redact' : 'orders_requested';
  const orders = orderIdsOf(body[listField], listField);
  if (!Array.isArray(orders)) return { kind: 'invalid', ...orders };
  subject.orderIds.push(...orders);
  if (subject.customerIds.length + subject.emails.length + subject.orderIds.length === 0)
    return { kind: 'invalid', field: 'customer', message: `names nobody (no id, email or ${listField})` };
  return { kind, subject };
}
