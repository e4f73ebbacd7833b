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

  // Non-ASCII digests, computed outside this code: FNV-1a 128 in Python (offset 0x6c62272e07bb014262b821756295c58d,
  // prime 0x1000000000000000000013b, checked against the three vectors above) over `text.encode('utf-8')`; the lone
  // surrogate over `'\ud800'.encode('utf-8', 'surrogatepass')` (bytes ed a0 80). The bytes are in each row, and
  // `printf 'é' | xxd` shows c3 a9. Each row would come out otherwise from an encoder other than UTF-8: 'é' as
  // Latin-1 (e9) gives d228cb68e71a8caf78912b704e49e20c, as UTF-16LE (e9 00) 088093f669ab1be95aa0733054e924c4;
  // '😀' as CESU-8 (one three-byte sequence per surrogate, ed a0 bd ed b8 80) gives bfbef841193c64bf6d2b825fa2afa27e.
  it.each([
    ['é', 'c3 a9', '088093bf9eab1be95aa0733054c70821'],
    ['e\u0301', '65 cc 81', 'a68d517d9e8b5822836dbc7971260a4f'],
    ['café', '63 61 66 c3 a9', '4b38eb0ac183d94f70814abce2e7f149'],
    ['€', 'e2 82 ac', 'a68b2a1a028b5822836dbc788ea05fdb'],
    ['😀', 'f0 9f 98 80', '6633bd7871757277b806e877951e7228'],
    ['\ud800', 'ed a0 80', 'a68ae8195d8b5822836dbc7873fd4400'],
  ])('hashes %p as its UTF-8 bytes %s', (text, _bytes, hex) => {
    expect(fnv1a128Hex(text)).toBe(hex);
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

  it('pins the value of non-ASCII inputs (each length prefix counts UTF-16 code units, the hash takes UTF-8 bytes)', () => {
    // Python: parts joined as f"{len(p.encode('utf-16-le')) // 2}:{p}", the FNV-1a 128 above over .encode('utf-8').
    expect(webhookId('st_1', 'd1', 'ev-é', 'Viewed Product 😀')).toBe('msg_67bc0e03e5aae000de5ffd7bbc46a5af');
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
