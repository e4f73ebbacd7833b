import { checkoutLineTotal } from './line-items';
import { sampleCheckout } from '../../test/support/samples';

const line = () => {
  const first = sampleCheckout().lineItems[0];
  if (!first) throw new Error('sample has line items');
  return first;
};

describe('checkoutLineTotal', () => {
  it('is finalLinePrice when the pixel sends it', () => {
    expect(checkoutLineTotal({ ...line(), finalLinePrice: { amount: 41.5, currencyCode: 'USD' } })).toEqual({
      amount: 41.5,
      currencyCode: 'USD',
    });
  });

  it('is unit price times quantity without finalLinePrice, free of float noise', () => {
    const { finalLinePrice: _absent, ...older } = line();
    const variant = { ...older.variant, price: { amount: 749.95, currencyCode: 'INR' } };
    expect(checkoutLineTotal({ ...older, variant, quantity: 6 })).toEqual({ amount: 4499.7, currencyCode: 'INR' });
  });
});
