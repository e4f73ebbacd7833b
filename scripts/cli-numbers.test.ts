import { InvalidArgumentError } from 'commander';
import { nonNegativeInteger, positiveFraction, positiveInteger } from './cli-numbers';

describe('positiveInteger', () => {
  it('reads a whole number from 1, surrounding spaces allowed', () => {
    expect(positiveInteger()('1')).toBe(1);
    expect(positiveInteger('events')(' 100000 ')).toBe(100_000);
    expect(positiveInteger('days', 3660)('3660')).toBe(3660);
  });

  it('refuses anything else, naming the option when given', () => {
    for (const bad of ['0', '-3', '1.5', 'abc', '', '1e3'])
      expect(() => positiveInteger('events')(bad)).toThrow(
        new InvalidArgumentError('events must be a positive integer'),
      );
    expect(() => positiveInteger()('x')).toThrow('must be a positive integer');
    expect(() => positiveInteger('days', 3660)('3661')).toThrow('days must be between 1 and 3660');
  });
});

describe('nonNegativeInteger', () => {
  it('reads a whole number from 0', () => {
    expect(nonNegativeInteger()('0')).toBe(0);
    expect(nonNegativeInteger('warmup-seconds')(' 10 ')).toBe(10);
  });

  it.each(['-1', '1.5', 'abc', '', '1e3'])('refuses %p, naming the option', (value) => {
    expect(() => nonNegativeInteger('warmup-seconds')(value)).toThrow(
      new InvalidArgumentError('warmup-seconds must be 0 or a positive integer'),
    );
  });
});

describe('positiveFraction', () => {
  it('accepts a decimal above 0', () => {
    expect(positiveFraction()('0.5')).toBe(0.5);
    expect(positiveFraction()('.25')).toBe(0.25);
    expect(positiveFraction()('2')).toBe(2);
  });

  it.each(['0', '0.0', '-1', 'half', '', '1e3'])('refuses %p, naming the option', (value) => {
    expect(() => positiveFraction('daemon-cpu')(value)).toThrow(/^daemon-cpu must be a number above 0/);
  });
});
