import { sampleOrder } from '../../../test/support/samples';
import { browserClientOfOrder } from '../../../contracts/src/identity';
import fc from 'fast-check';
import { handoffKey, type ProductSighting, supersedes } from './facts';

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

describe('supersedes', () => {
  const tee = (at: number, title: string, imageSrc = 'tee.jpg'): ProductSighting => ({
    productId: 'p1',
    title,
    vendor: 'Acme',
    productType: 'Shirts',
    imageSrc,
    at,
  });

  it('lets the later sighting win, whatever its texts', () => {
    expect(supersedes(tee(2, 'A'), tee(1, 'Z'))).toBe(true);
    expect(supersedes(tee(1, 'Z'), tee(2, 'A'))).toBe(false);
  });

  it('breaks a tie by the texts in code point order, as the "C" collation does', () => {
    expect(supersedes(tee(1, 'Tee', 'b.jpg'), tee(1, 'Tee', 'a.jpg'))).toBe(true);
    expect(supersedes(tee(1, 'Tee', 'a.jpg'), tee(1, 'Tee', 'b.jpg'))).toBe(false);
    // UTF-16 puts U+FF5E above the surrogate pair of U+1F455; code points (and UTF-8 bytes) the other way.
    expect(supersedes(tee(1, 'Tee \u{1F455}'), tee(1, 'Tee \uFF5E'))).toBe(true);
    expect(supersedes(tee(1, 'Tee'), tee(1, 'Tee'))).toBe(false);
  });

  it('picks the same latest sighting in every arrival order', () => {
    const sighting = fc.record({
      productId: fc.constant('p1'),
      title: fc.constantFrom('Tee', 'Organic Tee', 'Tee \u{1F455}', 'Tee \uFF5E'),
      vendor: fc.constantFrom('Acme', 'Bolt'),
      productType: fc.constant('Shirts'),
      imageSrc: fc.constantFrom('a.jpg', 'b.jpg'),
      at: fc.integer({ min: 1, max: 4 }),
    });
    const latest = (all: readonly ProductSighting[]) => all.reduce((held, s) => (supersedes(s, held) ? s : held));
    fc.assert(
      fc.property(
        fc
          .array(sighting, { minLength: 1, maxLength: 12 })
          .chain((all) => fc.tuple(fc.constant(all), fc.shuffledSubarray(all, { minLength: all.length }))),
        ([all, shuffled]) => {
          expect(latest(shuffled)).toEqual(latest(all));
        },
      ),
    );
  });
});
