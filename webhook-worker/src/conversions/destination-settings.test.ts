import {
  validateAccessToken,
  validateConversionAction,
  validateGoogleCustomerId,
  validateMetaPixelId,
  validateTestEventCode,
  validateTikTokPixelCode,
} from './destination-settings';

describe('ad platform destination settings', () => {
  it('takes the platforms ids as they show them', () => {
    expect(validateMetaPixelId(' 1234567890123456 ')).toBe('1234567890123456');
    expect(validateTikTokPixelCode('C85O1JNV9S6R0CDU7VV0')).toBe('C85O1JNV9S6R0CDU7VV0');
    expect(validateGoogleCustomerId('123-456-7890')).toBe('1234567890');
    expect(validateConversionAction('customers/1234567890/conversionActions/987654', '1234567890')).toBe(
      'customers/1234567890/conversionActions/987654',
    );
    expect(validateTestEventCode('TEST12345')).toBe('TEST12345');
  });

  it('names the option of a wrong value', () => {
    expect(() => validateMetaPixelId('px_123')).toThrow(/^--pixel: a Meta pixel id is 5 to 20 digits, got "px_123"$/);
    expect(() => validateTikTokPixelCode('c85o')).toThrow(/^--pixel: a TikTok pixel code/);
    expect(() => validateGoogleCustomerId('12345')).toThrow(/^--customer: /);
    expect(() => validateConversionAction('conversionActions/1', '1234567890')).toThrow(/^--conversion-action: /);
    expect(() => validateConversionAction('customers/9999999999/conversionActions/1', '1234567890')).toThrow(
      '--conversion-action: names customer 9999999999, not --customer 1234567890',
    );
    expect(() => validateTestEventCode('TEST 1')).toThrow(/^--test-event-code: /);
  });

  it('never quotes a token it refuses', () => {
    const bad = 'EAAB secret with spaces';
    expect(() => validateAccessToken(bad)).toThrow(/^--token: /);
    try {
      validateAccessToken(bad);
    } catch (err) {
      expect((err as Error).message).not.toContain('secret');
    }
    expect(validateAccessToken(' EAABsbCS1iHgBAKZC7ZBxyz0123456789 ')).toBe('EAABsbCS1iHgBAKZC7ZBxyz0123456789');
  });
});
