import fs from 'node:fs';
import path from 'node:path';
import { parseExactJson } from './exact-json';
import { shopifyPrivacyRequest } from './shopify-privacy';

const sample = (file: string): unknown =>
  parseExactJson(fs.readFileSync(path.join(__dirname, '../../../../test/fixtures/shopify', file), 'utf8'));

describe('shopifyPrivacyRequest', () => {
  it("Shopify's sample bodies: an export, an erasure and a store deletion", () => {
    const john = { emails: ['john@example.com'], customerIds: ['191167'], clientIds: [] };
    expect(shopifyPrivacyRequest('customers/data_request', sample('customers-data_request.json'))).toEqual({
      kind: 'export',
      subject: { ...john, orderIds: ['299938', '280263', '220458'] },
    });
    expect(shopifyPrivacyRequest('customers/redact', sample('customers-redact.json'))).toEqual({
      kind: 'erase',
      subject: { ...john, orderIds: ['299938', '280263', '220458'] },
    });
    expect(shopifyPrivacyRequest('shop/redact', sample('shop-redact.json'))).toEqual({ kind: 'delete_store' });
  });

  it('keeps ids above 2^53 exact, and an erasure by email alone', () => {
    const body = parseExactJson(
      '{"customer":{"id":9007199254740993,"email":" John@Example.com"},"orders_to_redact":[9007199254740995]}',
    );
    expect(shopifyPrivacyRequest('customers/redact', body)).toEqual({
      kind: 'erase',
      subject: {
        emails: ['john@example.com'],
        customerIds: ['9007199254740993'],
        clientIds: [],
        orderIds: ['9007199254740995'],
      },
    });
    expect(shopifyPrivacyRequest('customers/redact', { customer: { email: 'a@b.c' } })).toMatchObject({
      subject: { emails: ['a@b.c'], customerIds: [], orderIds: [] },
    });
  });

  it('names what is wrong', () => {
    expect(shopifyPrivacyRequest('customers/redact', [])).toMatchObject({ kind: 'invalid', field: 'body' });
    expect(shopifyPrivacyRequest('customers/redact', { customer: 'x' })).toMatchObject({ field: 'customer' });
    expect(shopifyPrivacyRequest('customers/redact', { customer: { id: 1.5 } })).toMatchObject({
      field: 'customer.id',
    });
    expect(
      shopifyPrivacyRequest('customers/redact', { customer: { id: 1 }, orders_to_redact: [1, 'x'] }),
    ).toMatchObject({
      field: 'orders_to_redact[1]',
    });
    expect(shopifyPrivacyRequest('customers/data_request', { customer: {} })).toMatchObject({
      field: 'customer',
      message: 'names nobody (no id, email or orders_requested)',
    });
  });
});
