import { globalIdNumber, storedOrderId } from './shopify-ids';

describe('Shopify order ids as callers send them', () => {
  it('finds the stored order id in both global id forms and the number itself', () => {
    expect(storedOrderId('gid://shopify/OrderIdentity/5396439498987')).toBe('5396439498987');
    expect(storedOrderId('gid://shopify/Order/5396439498987')).toBe('5396439498987');
    expect(storedOrderId('5396439498987')).toBe('5396439498987');
    expect(storedOrderId(' 5396439498987 ')).toBe('5396439498987');
  });

  it('keeps ids beyond 2^53 exact, digit for digit', () => {
    // 2^53 + 1 = 9007199254740993 is the first integer a double cannot hold.
    expect(storedOrderId('gid://shopify/OrderIdentity/9007199254740993')).toBe('9007199254740993');
    expect(storedOrderId('gid://shopify/Order/123456789012345678901')).toBe('123456789012345678901');
  });

  it('leaves other ids as they are: other stores’ own ids, other Shopify types, malformed global ids', () => {
    expect(storedOrderId('wc-723')).toBe('wc-723');
    expect(storedOrderId('gid://shopify/Customer/7')).toBe('gid://shopify/Customer/7');
    expect(storedOrderId('gid://shopify/Order/12?key=x')).toBe('gid://shopify/Order/12?key=x');
    expect(storedOrderId('gid://shopify/Order/')).toBe('gid://shopify/Order/');
    expect(globalIdNumber('gid://shopify/Customer/7', ['Customer'])).toBe('7');
    expect(globalIdNumber('gid://shopify/Customer/7', ['Order'])).toBeNull();
  });
});
