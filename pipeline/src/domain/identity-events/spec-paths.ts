/**
 * The spec's Checkout Started table (spec "Checkout-started identity webhook payload" and "Webhook line item")
 * as data, and a checker that walks a payload along it. Used by the unit tests and by any test that receives
 * the payload over HTTP.
 *
 * Path syntax: members separated by `.`; `name[]` is an array whose every element the rest applies to.
 */

export type SpecType = 'string' | 'number' | 'integer' | 'boolean' | 'string[]' | 'array' | 'object';

export type SpecPath = readonly [path: string, type: SpecType];

const LINE = 'attributes.properties.$extra.line_items[]';
const PRODUCT = `${LINE}.product`;

/** Every path of the spec's table (all required), with the spec's type. */
export const CHECKOUT_STARTED_SPEC_PATHS: readonly SpecPath[] = [
  ['type', 'string'],
  ['attributes.time', 'string'],
  ['attributes.value', 'number'],
  ['attributes.value_currency', 'string'],
  ['attributes.unique_id', 'string'],
  ['attributes.properties.Collections', 'string[]'],
  ['attributes.properties.$currency_code', 'string'],
  ['attributes.properties.Items', 'string[]'],
  ['attributes.properties.Item Count', 'integer'],
  ['attributes.properties.presentment_currency', 'string'],
  ['attributes.properties.$value', 'number'],
  ['attributes.properties.Discount Codes', 'string[]'],
  ['attributes.properties.Total Discounts', 'integer'],
  ['attributes.properties.$extra.full_landing_site', 'string'],
  ['attributes.properties.$extra.referring_site', 'string'],
  ['attributes.properties.$extra.checkout_url', 'string'],
  ['attributes.properties.$extra.responsive_checkout_url', 'string'],
  ['attributes.properties.$extra.line_items', 'array'],
  ...(
    [
      'key',
      'presentment_title',
      'parent_relationship',
      'grams',
      'product_id',
      'variant_id',
      'vendor',
      'sku',
      'variant_title',
      'presentment_variant_title',
      'title',
    ] as const
  ).map((member): SpecPath => [`${LINE}.${member}`, 'string']),
  ...(['compare_at_price', 'line_price', 'variant_price', 'price'] as const).map((member): SpecPath => [
    `${LINE}.${member}`,
    'number',
  ]),
  [`${LINE}.quantity`, 'integer'],
  [`${LINE}.line_price_set.shop_money.amount`, 'number'],
  [`${LINE}.line_price_set.presentment_money.amount`, 'number'],
  [PRODUCT, 'object'],
  ...(['body_html', 'tags', 'handle', 'id', 'title', 'product_type', 'url', 'vendor'] as const).map(
    (member): SpecPath => [`${PRODUCT}.${member}`, 'string'],
  ),
  [`${PRODUCT}.images`, 'array'],
  [`${PRODUCT}.images[].src`, 'string'],
  [`${PRODUCT}.variant`, 'object'],
  [`${PRODUCT}.variant.sku`, 'string'],
  [`${PRODUCT}.variant.title`, 'string'],
  [`${PRODUCT}.variant.id`, 'string'],
  [`${PRODUCT}.variant.images`, 'array'],
  [`${PRODUCT}.variant.images[].src`, 'string'],
  ['attributes.metric.data.type', 'string'],
  ['attributes.metric.data.attributes.name', 'string'],
  ['attributes.metric.data.attributes.service', 'string'],
  ['attributes.profile.data.type', 'string'],
  ...(['email', 'phone_number', 'first_name', 'last_name'] as const).map((member): SpecPath => [
    `attributes.profile.data.attributes.${member}`,
    'string',
  ]),
  ...(['address1', 'address2', 'city', 'country', 'region', 'zip'] as const).map((member): SpecPath => [
    `attributes.profile.data.attributes.location.${member}`,
    'string',
  ]),
];

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Whether `value` has the spec type (numbers must be finite). */
export function hasSpecType(value: unknown, type: SpecType): boolean {
  switch (type) {
    case 'string':
      return typeof value === 'string';
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'integer':
      return typeof value === 'number' && Number.isInteger(value);
    case 'boolean':
      return typeof value === 'boolean';
    case 'string[]':
      return Array.isArray(value) && value.every((item) => typeof item === 'string');
    case 'array':
      return Array.isArray(value);
    case 'object':
      return isObject(value);
  }
}

function describe(value: unknown): string {
  if (value === undefined) return 'missing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

function walk(node: unknown, segments: readonly string[], at: string, type: SpecType, out: string[]): void {
  const [segment, ...rest] = segments;
  if (segment === undefined) {
    if (!hasSpecType(node, type)) out.push(`${at}: expected ${type}, got ${describe(node)}`);
    return;
  }
  const isArray = segment.endsWith('[]');
  const key = isArray ? segment.slice(0, -2) : segment;
  const here = at === '' ? key : `${at}.${key}`;
  if (!isObject(node)) {
    out.push(`${here}: parent is ${describe(node)}`);
    return;
  }
  const child = Object.prototype.hasOwnProperty.call(node, key) ? node[key] : undefined;
  if (!isArray) {
    walk(child, rest, here, type, out);
    return;
  }
  if (!Array.isArray(child)) {
    out.push(`${here}: expected array, got ${describe(child)}`);
    return;
  }
  child.forEach((element, index) => walk(element, rest, `${here}[${index}]`, type, out));
}

/** Every way `payload` departs from `paths` (missing member or wrong type); `[]` when it conforms. */
export function specPathViolations(
  payload: unknown,
  paths: readonly SpecPath[] = CHECKOUT_STARTED_SPEC_PATHS,
): string[] {
  const out: string[] = [];
  for (const [path, type] of paths) walk(payload, path.split('.'), '', type, out);
  return out;
}
