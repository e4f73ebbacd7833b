import { CONSENT_ATTRIBUTE, consentWithheldBy } from './tracker';

describe('consentWithheldBy', () => {
  it('reads a refusal in the order note attributes, and only a refusal', () => {
    expect(consentWithheldBy([{ name: CONSENT_ATTRIBUTE, value: 'denied' }])).toBe(true);
    expect(consentWithheldBy([{ name: CONSENT_ATTRIBUTE, value: ' False ' }])).toBe(true);
    expect(consentWithheldBy([{ name: CONSENT_ATTRIBUTE, value: 'granted' }])).toBe(false);
    expect(consentWithheldBy([{ name: '_oa_client_id', value: 'denied' }])).toBe(false);
    expect(consentWithheldBy(null)).toBe(false);
  });
});
