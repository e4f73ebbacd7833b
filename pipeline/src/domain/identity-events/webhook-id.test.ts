import { fnv1a128Hex, webhookId } from './webhook-id';

describe('fnv1a128Hex', () => {
  // Reference vectors of FNV-1a 128-bit (draft-eastlake-fnv, www.isthe.com/chongo/tech/comp/fnv).
  it.each([
    ['', '6c62272e07bb014262b821756295c58d'],
    ['a', 'd228cb696f1a8caf78912b704e4a8964'],
    ['foobar', '343e1662793c64bf6f0d3597ba446f18'],
  ])('of %p is %s', (text, hex) => {
    expect(fnv1a128Hex(text)).toBe(hex);
  });

  it('hashes non-ASCII text as UTF-8', () => {
    expect(fnv1a128Hex('é')).toBe(fnv1a128Hex('\u00e9'));
    expect(fnv1a128Hex('é')).not.toBe(fnv1a128Hex('e\u0301'));
    expect(fnv1a128Hex('😀')).toMatch(/^[0-9a-f]{32}$/);
  });
});

describe('webhookId', () => {
  const base = ['st_shop1', 'wh_dest1', 'sh-checkout-started-0001', 'Checkout Started'] as const;

  it('is msg_ and 32 hex digits, the same on every call (retries, redeliveries, restarts)', () => {
    const id = webhookId(...base);
    expect(id).toMatch(/^msg_[0-9a-f]{32}$/);
    expect(webhookId(...base)).toBe(id);
    expect(webhookId('st_shop1', 'wh_dest1', 'sh-checkout-started-0001', 'Checkout Started')).toBe(id);
  });

  it('pins the value, so a change of algorithm (which would resend deliveries under new ids) is seen', () => {
    expect(webhookId('st_1', 'd1', 'ev', 'Checkout Started')).toBe('msg_4eb95e6b705f8d795eae519666b1d7a6');
  });

  it.each([0, 1, 2, 3])('changes with input %i', (index) => {
    const changed: [string, string, string, string] = [...base];
    changed[index] = `${changed[index]}x`;
    expect(webhookId(...changed)).not.toBe(webhookId(...base));
  });

  it('differs across destinations of the same event', () => {
    const ids = ['wh_a', 'wh_b', 'wh_c'].map((dest) => webhookId('st_shop1', dest, 'ev-1', 'Viewed Product'));
    expect(new Set(ids).size).toBe(3);
  });

  it('does not confuse a boundary moved between inputs', () => {
    expect(webhookId('ab', 'c', 'e', 'n')).not.toBe(webhookId('a', 'bc', 'e', 'n'));
    expect(webhookId('a:b', 'c', 'e', 'n')).not.toBe(webhookId('a', 'b:c', 'e', 'n'));
    expect(webhookId('1:a', '', 'e', 'n')).not.toBe(webhookId('', '1:a', 'e', 'n'));
  });

  it('has no collision over 20,000 event ids', () => {
    const ids = new Set<string>();
    for (let i = 0; i < 20_000; i++) ids.add(webhookId('st_shop1', 'wh_dest1', `ev-${i}`, 'Viewed Product'));
    expect(ids.size).toBe(20_000);
  });
});
