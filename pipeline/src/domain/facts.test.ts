import { sampleOrder } from '../../../test/support/samples';
import { browserClientOfOrder } from '../../../contracts/src/identity';
import { handoffKey } from './facts';

const withAttributes = (note_attributes: Array<{ name: string; value?: string | null }> | null) =>
  sampleOrder({ note_attributes });

describe('browserClientOfOrder', () => {
  it('reads the tracker cart attribute among others, trimmed', () => {
    const order = withAttributes([
      { name: 'gift_note', value: 'Happy birthday' },
      { name: '_oa_client_id', value: '  c0ffee00-0000-4000-8000-000000000042 ' },
    ]);
    expect(browserClientOfOrder(order)).toBe('c0ffee00-0000-4000-8000-000000000042');
    expect(handoffKey('c0ffee00-0000-4000-8000-000000000042')).toBe('b:c0ffee00-0000-4000-8000-000000000042');
  });

  it.each([
    ['no attributes', null],
    ['no tracker attribute', [{ name: 'gift_note', value: 'x' }]],
    ['an empty value', [{ name: '_oa_client_id', value: '  ' }]],
    ['a null value', [{ name: '_oa_client_id', value: null }]],
    ['no value', [{ name: '_oa_client_id' }]],
    ['an order pseudo-client', [{ name: '_oa_client_id', value: 'order:5512345678901' }]],
    ['a value longer than a clientId may be', [{ name: '_oa_client_id', value: 'x'.repeat(257) }]],
  ])('names nobody with %s', (_label, attributes) => {
    expect(browserClientOfOrder(withAttributes(attributes))).toBeNull();
  });
});
