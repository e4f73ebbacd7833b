/**
 * fast-check arbitraries of ingestion items: a valid item of each route (the samples, which mirror the
 * validators' schemas), then one to four of its members replaced by values of the same JSON type chosen to be
 * awkward downstream: extreme numbers, odd dates and offsets, unusual Unicode, long non-ASCII strings,
 * hostile URL parameters, deep nesting. Many stay valid, which is the point: what the API accepts must be
 * stored by the pipeline. Shared by the pure property test (contracts) and the integration fuzz.
 */
import fc from 'fast-check';
import { EVENT_NAMES } from '../../contracts/src/events';
import { sampleAdSpendRow, sampleCustomer, sampleEvent, sampleOrder, sampleProduct } from './samples';

export type IngestRoute = 'events' | 'collect' | 'orders' | 'products' | 'customers' | 'ad-spend';
export const INGEST_ROUTES: readonly IngestRoute[] = [
  'events',
  'collect',
  'orders',
  'products',
  'customers',
  'ad-spend',
];

const MIXED: Array<[number, number]> = [
  [0x4e00, 0x9fff],
  [0x0600, 0x06ff],
  [0x1f300, 0x1f5ff],
  [0x0300, 0x036f],
];

/** Incompressible non-ASCII text: `n` code points drawn from CJK, Arabic, emoji and combining marks. */
function scrambled(n: number, seed: number, ranges: Array<[number, number]> = MIXED): string {
  let x = seed >>> 0 || 1;
  let out = '';
  for (let i = 0; i < n; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    const [lo, hi] = ranges[x % ranges.length]!;
    out += String.fromCodePoint(lo + (x % (hi - lo + 1)));
  }
  return out;
}

/** CJK text of `n` UTF-16 units (3 bytes each in UTF-8): as long as an id may be, three times as many bytes. */
export const longCjk: fc.Arbitrary<string> = fc
  .tuple(fc.integer({ min: 150, max: 512 }), fc.integer())
  .map(([n, seed]) => scrambled(n, seed, [[0x4e00, 0x9fff]]));

const pad2 = (n: number) => String(n).padStart(2, '0');

/** ISO 8601 date-times at the edges: years 0000-9999, offsets up to ±23:59, leap seconds, long fractions. */
export const oddTimestamp: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    '0000-01-01T00:00:00Z',
    '0001-01-01T00:00:00Z',
    '0001-01-01T00:00:00+14:00',
    '0001-01-01T05:00:00-05:00',
    '1969-12-31T23:59:59.999Z',
    '1970-01-01T00:00:00Z',
    '2016-12-31T23:59:60Z',
    '2024-02-29T12:00:00.123456789-03:30',
    '2025-01-12T04:30:54+23:59',
    '2025-01-12T04:30:54-16:00',
    '2025-01-12T04:30:54+15:59',
    '9999-12-31T23:59:59Z',
    '9999-12-31T23:59:59-14:00',
    '9999-12-31T23:59:59.999+00:00',
  ),
  fc
    .record({
      year: fc.oneof(
        fc.integer({ min: 0, max: 30 }),
        fc.integer({ min: 9970, max: 9999 }),
        fc.integer({ min: 0, max: 9999 }),
      ),
      month: fc.integer({ min: 1, max: 12 }),
      day: fc.integer({ min: 1, max: 28 }),
      hour: fc.integer({ min: 0, max: 23 }),
      second: fc.integer({ min: 0, max: 60 }),
      offsetMinutes: fc.integer({ min: -(24 * 60 - 1), max: 24 * 60 - 1 }),
    })
    .map(({ year, month, day, hour, second, offsetMinutes }) => {
      const sign = offsetMinutes < 0 ? '-' : '+';
      const abs = Math.abs(offsetMinutes);
      const offset = `${sign}${pad2(Math.floor(abs / 60))}:${pad2(abs % 60)}`;
      return `${String(year).padStart(4, '0')}-${pad2(month)}-${pad2(day)}T${pad2(hour)}:00:${pad2(second)}${offset}`;
    }),
);

/** Calendar dates at the edges. */
export const oddDate: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom('0000-01-01', '0001-01-01', '1970-01-01', '2024-02-29', '2023-02-29', '9999-12-31'),
  oddTimestamp.map((t) => t.slice(0, 10)),
);

/** Strings that are valid JSON but awkward for a database, an index or a URL parser. */
export const oddString: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    '',
    ' ',
    '\u0000',
    'a\u0000b',
    '\ud800',
    'x\udc00',
    '\u202egnp.exe',
    'e\u0301\u0301\u0301',
    '👩‍👩‍👧‍👦',
    '\ufeff',
    '\u2028\u2029',
    'NaN',
    'Infinity',
    '-0',
    '1e999',
    '9223372036854775807',
    '9223372036854775808',
    '00000000000000000000001',
    'gid://shopify/Order/9223372036854775807',
    'gid://shopify/Product/1',
    ' Jane@Example.COM ',
    'é'.repeat(3000),
    'x'.repeat(600),
  ),
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 20 }),
  fc.tuple(fc.integer({ min: 1, max: 600 }), fc.integer()).map(([n, seed]) => scrambled(n, seed)),
  longCjk,
  oddTimestamp,
);

/** JSON numbers at the edges (JSON has no NaN or infinity: those are strings above). */
export const oddNumber: fc.Arbitrary<number> = fc.oneof(
  fc.constantFrom(
    0,
    -0,
    -1,
    0.1,
    0.005,
    5e-324,
    1e-7,
    999_999_999.995,
    1e9,
    1e9 + 1,
    1e6,
    1e6 + 1,
    2 ** 31,
    2 ** 53 - 1,
    2 ** 53 + 2,
    2 ** 63,
    1e12,
    1e21,
    1e308,
    -1e308,
    Number.MAX_VALUE,
  ),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.integer(),
  fc.nat({ max: 1_000_000 }),
);

/** A landing URL whose attribution parameters carry odd values (touchpoint keys come from them). */
const hrefPart = fc.oneof(oddString, longCjk);
export const oddHref: fc.Arbitrary<string> = fc
  .record({
    source: hrefPart,
    medium: hrefPart,
    campaign: hrefPart,
    content: hrefPart,
    utmId: hrefPart,
    path: hrefPart,
  })
  .map(
    ({ source, medium, campaign, content, utmId, path }) =>
      `https://shop.example/${encodeURIComponent(path).slice(0, 1500)}?` +
      new URLSearchParams({
        utm_source: source,
        utm_medium: medium,
        utm_campaign: campaign,
        utm_content: content,
        utm_id: utmId,
      }).toString(),
  );

/** Any value at all, including deep nesting, in place of a member. */
const anyValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(null, true, [], {}),
  fc.integer({ min: 1, max: 40 }).map((depth) => {
    let v: unknown = 'deep';
    for (let i = 0; i < depth; i++) v = { [`k${i}`]: [v] };
    return v;
  }),
  fc.jsonValue({ maxDepth: 3 }),
);

type Path = Array<string | number>;

/** Every path to a member of a JSON value, with the member's value. */
function leaves(value: unknown, prefix: Path = [], out: Array<{ path: Path; value: unknown }> = []) {
  if (Array.isArray(value)) value.forEach((v, i) => leaves(v, [...prefix, i], out));
  else if (value !== null && typeof value === 'object')
    for (const [k, v] of Object.entries(value)) leaves(v, [...prefix, k], out);
  if (prefix.length > 0) out.push({ path: prefix, value });
  return out;
}

function setAt(root: unknown, path: Path, to: unknown): void {
  let cur = root as Record<string | number, unknown>;
  for (const key of path.slice(0, -1)) {
    const next = cur[key];
    // An earlier replacement may have turned a parent into a scalar.
    if (typeof next !== 'object' || next === null) return;
    cur = next as Record<string | number, unknown>;
  }
  cur[path[path.length - 1]!] = to;
}

const TIME_KEY = /(^|_)at$|timestamp|^date$/i;

/** A replacement of the same JSON type, mostly; dates where the member is a date; any value now and then. */
function replacementFor(path: Path, value: unknown): fc.Arbitrary<unknown> {
  const key = String(path[path.length - 1]);
  if (key === 'href') return fc.oneof({ weight: 3, arbitrary: oddHref }, { weight: 1, arbitrary: oddString });
  if (typeof value === 'string' && TIME_KEY.test(key))
    return fc.oneof(
      { weight: 4, arbitrary: key === 'date' ? oddDate : oddTimestamp },
      { weight: 1, arbitrary: oddString },
    );
  if (typeof value === 'string')
    return fc.oneof({ weight: 5, arbitrary: oddString }, { weight: 1, arbitrary: anyValue });
  if (typeof value === 'number')
    return fc.oneof({ weight: 5, arbitrary: oddNumber }, { weight: 1, arbitrary: anyValue });
  return anyValue;
}

/** `base` with one to four members replaced by odd values (paths chosen among all of its members). */
export function mutate(base: unknown): fc.Arbitrary<unknown> {
  const all = leaves(base);
  const one = fc.nat({ max: all.length - 1 }).chain((i) => {
    const { path, value } = all[i]!;
    return replacementFor(path, value).map((to) => ({ path, to }));
  });
  return fc.array(one, { minLength: 1, maxLength: 4 }).map((edits) => {
    const copy = structuredClone(base);
    for (const { path, to } of edits) setAt(copy, path, to);
    return copy;
  });
}

/** `base` with several of its string members (not times) replaced by long CJK text at once. */
export function widen(base: unknown): fc.Arbitrary<unknown> {
  const strings = leaves(base).filter(
    ({ path, value }) => typeof value === 'string' && !TIME_KEY.test(String(path[path.length - 1])),
  );
  const one = fc.nat({ max: strings.length - 1 }).chain((i) => longCjk.map((to) => ({ path: strings[i]!.path, to })));
  return fc.array(one, { minLength: 2, maxLength: 8 }).map((edits) => {
    const copy = structuredClone(base);
    for (const { path, to } of edits) setAt(copy, path, to);
    return copy;
  });
}

/**
 * A valid item of `route` with unique ids (from `unique`, a counter the caller keeps), and the current time as
 * its event time so that an unmutated event is accepted.
 */
export function baseItem(route: IngestRoute, unique: number, now: string): unknown {
  const id = String(7_000_000_000_000 + unique);
  switch (route) {
    case 'events':
    case 'collect': {
      const name = EVENT_NAMES[unique % EVENT_NAMES.length]!;
      return sampleEvent(name, { id: `fz-${route}-${id}`, clientId: `fzc-${id}`, timestamp: now });
    }
    case 'orders':
      return sampleOrder({ id, checkout_token: `tok-${id}`, updated_at: now });
    case 'products':
      return sampleProduct({ id, updated_at: now });
    case 'customers':
      return sampleCustomer({ id, updated_at: now });
    case 'ad-spend':
      return sampleAdSpendRow({ campaign_id: id, updated_at: now });
  }
}

/** Items of `route`: valid ones now and then, mutated ones mostly. */
export function ingestItem(route: IngestRoute, next: () => number, now: () => string): fc.Arbitrary<unknown> {
  return fc.oneof(
    { weight: 1, arbitrary: fc.constant(null).map(() => baseItem(route, next(), now())) },
    { weight: 6, arbitrary: fc.constant(null).chain(() => mutate(baseItem(route, next(), now()))) },
    { weight: 2, arbitrary: fc.constant(null).chain(() => widen(baseItem(route, next(), now()))) },
  );
}
