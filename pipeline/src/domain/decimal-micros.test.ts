import { countOf, decimalToMicros, int64Micros, microsToDecimal } from './decimal-micros';

describe('decimalToMicros', () => {
  it('parses decimal strings exactly, without a float', () => {
    expect(decimalToMicros('14.35')).toBe(14_350_000);
    expect(decimalToMicros('0.290')).toBe(290_000);
    expect(decimalToMicros('1061')).toBe(1_061_000_000);
    expect(decimalToMicros('0.1')! + decimalToMicros('0.2')!).toBe(decimalToMicros('0.3'));
    expect(decimalToMicros('1.0000005')).toBe(1_000_001);
    expect(decimalToMicros('1.0000004')).toBe(1_000_000);
    expect(decimalToMicros(12.3)).toBe(12_300_000);
  });
  it('refuses what is not a plain non-negative decimal', () => {
    for (const bad of ['', '-1', '1e3', 'abc', '1.2.3', null, undefined, -2, Number.NaN]) {
      expect(decimalToMicros(bad as string)).toBeNull();
    }
  });
});

describe('int64Micros', () => {
  it('keeps an int64 string exact', () => {
    expect(int64Micros('1061083620')).toBe(1_061_083_620);
    expect(int64Micros('99999999999999999999')).toBeNull();
    expect(int64Micros('1.5')).toBeNull();
  });
});

describe('microsToDecimal and countOf', () => {
  it('round-trips micros to text', () => {
    expect(microsToDecimal(14_350_000)).toBe('14.35');
    expect(microsToDecimal(1_061_083_620)).toBe('1061.08362');
    expect(microsToDecimal(0)).toBe('0');
  });
  it('reads counts as strings or numbers', () => {
    expect(countOf('185')).toBe(185);
    expect(countOf(36)).toBe(36);
    expect(countOf('1.5')).toBeNull();
    expect(countOf(null)).toBeNull();
  });
});
