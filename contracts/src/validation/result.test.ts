import { z } from 'zod';
import { describeType, formatFieldError, formatPath, runSchema } from './result';

describe('formatPath', () => {
  it.each([
    [[], 'event'],
    [['clientId'], 'clientId'],
    [['data', 'checkout', 'lineItems', 2, 'quantity'], 'data.checkout.lineItems[2].quantity'],
    [[0, 'id'], '[0].id'],
    [['a', 0, 1, 'b'], 'a[0][1].b'],
  ])('%j -> %s', (path, expected) => {
    expect(formatPath(path, 'event')).toBe(expected);
  });
});

describe('formatFieldError', () => {
  it('joins field and message', () => {
    expect(formatFieldError({ field: 'data.lead.email', message: 'is required' })).toBe('data.lead.email: is required');
  });
});

describe('describeType', () => {
  it.each([
    [null, 'null'],
    [[], 'array'],
    [{}, 'object'],
    ['x', 'string'],
    [1, 'number'],
    [Number.NaN, 'NaN'],
    [false, 'boolean'],
  ])('%p is %s', (value, expected) => {
    expect(describeType(value)).toBe(expected);
  });
});

describe('runSchema messages', () => {
  const schema = z.object({
    name: z.string().min(1).max(3),
    kind: z.enum(['a', 'b']),
    only: z.literal('x'),
    items: z.array(z.number()).min(1).max(2),
    ratio: z.number().gt(0).lt(1),
  });
  const messages = (input: unknown): string[] => {
    const result = runSchema(schema, input, 'body');
    return result.ok ? [] : result.errors.map(formatFieldError);
  };

  it('describes each issue in plain words', () => {
    expect(messages({ name: '', kind: 'c', only: 'y', items: [], ratio: 0 })).toEqual([
      'name: must not be empty',
      'kind: must be one of a, b, got "c"',
      'only: must be x, got "y"',
      'items: must have at least 1 items',
      'ratio: must be greater than 0, got 0',
    ]);
    expect(messages({ name: 'long', kind: 'a', only: 'x', items: [1, 2, 3], ratio: 1 })).toEqual([
      'name: must be at most 3 characters (got 4)',
      'items: must have at most 2 items',
      'ratio: must be less than 1, got 1',
    ]);
  });

  it('shortens long strings it quotes', () => {
    const result = runSchema(z.enum(['a']), 'y'.repeat(100), 'value');
    expect(result.ok ? '' : result.errors[0]?.message).toBe(`must be a, got "${'y'.repeat(60)}..."`);
  });

  it('names the root', () => {
    expect(messages('x')).toEqual(['body: must be an object, got string']);
  });
});
