import { sampleCheckout, sampleEvent, withField, withoutField } from '../../../../test/support/samples';
import { buildCheckoutStarted } from './checkout-started';
import { sampleIdentityEventContext } from '../../../../test/support/identity-event-fixtures';
import { CHECKOUT_STARTED_SPEC_PATHS, hasSpecType, specPathViolations, type SpecType } from './spec-paths';

const payload = () =>
  buildCheckoutStarted(
    sampleEvent('checkout_started', { data: { checkout: sampleCheckout() } }),
    sampleIdentityEventContext(),
  );

/** Leaf paths of a JSON value in the spec's syntax (`[]` for array elements). */
function leafPaths(value: unknown, at = ''): string[] {
  if (Array.isArray(value)) {
    if (value.length === 0 || value.every((item) => typeof item !== 'object')) return [at];
    return [...new Set(value.flatMap((item) => leafPaths(item, `${at}[]`)))];
  }
  if (typeof value === 'object' && value !== null) {
    return Object.entries(value).flatMap(([key, item]) => leafPaths(item, at === '' ? key : `${at}.${key}`));
  }
  return [at];
}

describe('CHECKOUT_STARTED_SPEC_PATHS', () => {
  it('lists every member of the spec table and of the webhook line item once', () => {
    const paths = CHECKOUT_STARTED_SPEC_PATHS.map(([path]) => path);
    expect(new Set(paths).size).toBe(paths.length);
    const line = paths.filter((path) => path.startsWith('attributes.properties.$extra.line_items[].'));
    // 11 strings, 4 prices, quantity, 2 price-set amounts, product: object, 8 strings, images, src, variant
    // object, sku, title, id, images, src.
    expect(line).toHaveLength(11 + 4 + 1 + 2 + 1 + 8 + 2 + 1 + 5);
    expect(paths.filter((path) => !path.includes('line_items[]'))).toHaveLength(18 + 3 + 1 + 4 + 6);
  });

  it('is exactly the set of leaves of a built payload (no member beyond the spec)', () => {
    const specLeaves = CHECKOUT_STARTED_SPEC_PATHS.filter(([, type]) => type !== 'object' && type !== 'array')
      .map(([path]) => path)
      .sort();
    expect(leafPaths(payload()).sort()).toEqual(specLeaves);
  });
});

describe('specPathViolations', () => {
  it('accepts a built payload', () => {
    expect(specPathViolations(payload())).toEqual([]);
  });

  it.each<[string, string, unknown, string]>([
    ['a missing top member', 'type', undefined, 'type: expected string, got missing'],
    [
      'a null string',
      'attributes.profile.data.attributes.email',
      null,
      'attributes.profile.data.attributes.email: expected string, got null',
    ],
    ['a number as string', 'attributes.value', '68.18', 'attributes.value: expected number, got string'],
    [
      'a non-integer count',
      'attributes.properties.Item Count',
      2.5,
      'attributes.properties.Item Count: expected integer, got number',
    ],
    [
      'a decimal-string discount',
      'attributes.properties.Total Discounts',
      '5.85',
      'attributes.properties.Total Discounts: expected integer, got string',
    ],
    [
      'a non-string in a string list',
      'attributes.properties.Items',
      ['Tee', 3],
      'attributes.properties.Items: expected string[], got array',
    ],
    [
      'a missing line member',
      'attributes.properties.$extra.line_items[1].grams',
      undefined,
      'attributes.properties.$extra.line_items[1].grams: expected string, got missing',
    ],
    [
      'a numeric id',
      'attributes.properties.$extra.line_items[0].product.variant.id',
      45737128657113,
      'attributes.properties.$extra.line_items[0].product.variant.id: expected string, got number',
    ],
    [
      'a missing image src',
      'attributes.properties.$extra.line_items[0].product.images[0].src',
      undefined,
      'attributes.properties.$extra.line_items[0].product.images[0].src: expected string, got missing',
    ],
    [
      'NaN as a price',
      'attributes.properties.$extra.line_items[0].price',
      Number.NaN,
      'attributes.properties.$extra.line_items[0].price: expected number, got number',
    ],
  ])('reports %s', (_label, path, value, message) => {
    const broken = value === undefined ? withoutField(payload(), path) : withField(payload(), path, value);
    expect(specPathViolations(broken)).toContain(message);
  });

  it('reports a line-items member that is not an array, and a missing parent', () => {
    expect(specPathViolations(withField(payload(), 'attributes.properties.$extra.line_items', {}))).toContain(
      'attributes.properties.$extra.line_items: expected array, got object',
    );
    expect(specPathViolations(withoutField(payload(), 'attributes.profile'))).toContain(
      'attributes.profile.data: parent is missing',
    );
  });

  it.each<[unknown, SpecType, boolean]>([
    ['', 'string', true],
    [0, 'number', true],
    [Infinity, 'number', false],
    [3, 'integer', true],
    [3.5, 'integer', false],
    [true, 'boolean', true],
    [[], 'string[]', true],
    [['a', null], 'string[]', false],
    [{}, 'object', true],
    [[], 'object', false],
    [null, 'object', false],
  ])('hasSpecType(%p, %s) is %s', (value, type, expected) => {
    expect(hasSpecType(value, type)).toBe(expected);
  });
});
