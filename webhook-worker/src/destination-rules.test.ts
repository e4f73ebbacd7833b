import { IDENTITY_EVENTS } from '../../contracts/src/identity-events';
import {
  DESTINATION_ID_PATTERN,
  DestinationInputError,
  newDestinationId,
  parseEventList,
  validateDestinationUrl,
} from './destination-rules';

describe('validateDestinationUrl', () => {
  it.each([
    ['https://hooks.example.com/in?x=1', 'https://hooks.example.com/in?x=1'],
    ['http://127.0.0.1:8080/hook', 'http://127.0.0.1:8080/hook'],
    ['HTTPS://Example.COM', 'https://example.com/'],
  ])('accepts %s', (url, normalised) => {
    expect(validateDestinationUrl(url)).toBe(normalised);
  });

  it.each(['ftp://example.com/x', 'javascript:alert(1)', 'file:///etc/passwd', 'example.com/hook', '', 'https://'])(
    'rejects %j',
    (url) => {
      expect(() => validateDestinationUrl(url)).toThrow(DestinationInputError);
    },
  );

  it('rejects very long URLs', () => {
    expect(() => validateDestinationUrl(`https://example.com/${'a'.repeat(3000)}`)).toThrow(/longer/);
  });
});

describe('parseEventList', () => {
  it('accepts the exact names, trimmed and deduplicated, in the canonical order', () => {
    expect(parseEventList(' Subscribe,Checkout Started , Subscribe')).toEqual(['Checkout Started', 'Subscribe']);
    expect(parseEventList(IDENTITY_EVENTS.join(','))).toEqual([...IDENTITY_EVENTS]);
  });

  it('names the unknown events and lists the valid ones', () => {
    expect(() => parseEventList('Checkout Started,checkout started,Placed Order')).toThrow(
      /unknown events "checkout started", "Placed Order"; use the exact names: Active On site, /,
    );
  });

  it('refuses an empty list', () => {
    expect(() => parseEventList(' , ')).toThrow(/no event/);
  });
});

describe('newDestinationId', () => {
  it('is wd_ + a subject-safe random token', () => {
    const ids = new Set(Array.from({ length: 100 }, newDestinationId));
    expect(ids.size).toBe(100);
    for (const id of ids) {
      expect(id).toMatch(DESTINATION_ID_PATTERN);
      expect(id).toHaveLength(19);
    }
  });
});
