import type { QueuedPurchase } from '../../../contracts/src/ad-conversions';
import {
  googleCanTake,
  googleClickConversion,
  googleDateTime,
  googleRefusedConversions,
  googleUploadBody,
} from './google-ads';
import { tiktokEvent, tiktokTrackBody, tiktokVerdict } from './tiktok-events';
import { sha256Hex } from './user-data';

const purchase: QueuedPurchase = {
  orderId: '7000000000000000123',
  occurredAt: '2026-11-20T12:00:00.000Z',
  value: '120.50',
  currency: 'EUR',
  lines: [{ productId: '8950316581081', variantId: '45737128657113', quantity: 2, price: '60.25' }],
  pageUrl: 'https://shop.example/thank-you',
  email: ' Jane.Doe@Gmail.com',
  phone: '+44 844 412 4653',
  firstName: '',
  lastName: '',
  clientIp: '203.0.113.9',
  userAgent: 'Mozilla/5.0',
  fbp: '',
  clickIds: { fbc: null, google: { kind: 'gclid', value: 'Cj0KCQiA-abc' }, ttclid: 'E.C.P.CsABabc' },
};
const ACTION = 'customers/1234567890/conversionActions/987654';

describe('Google click conversions', () => {
  it('carries the click id, the order id, the exact value and the hashed email and phone', () => {
    expect(googleClickConversion(purchase, ACTION)).toEqual({
      gclid: 'Cj0KCQiA-abc',
      conversionAction: ACTION,
      conversionDateTime: '2026-11-20 12:00:00+00:00',
      conversionValue: 120.5,
      currencyCode: 'EUR',
      orderId: '7000000000000000123',
      userIdentifiers: [
        { hashedEmail: sha256Hex('janedoe@gmail.com') },
        { hashedPhoneNumber: sha256Hex('+448444124653') },
      ],
    });
  });

  it('without a click id is an enhanced conversion, and without anything to identify the buyer cannot be sent', () => {
    const enhanced = googleClickConversion({ ...purchase, clickIds: { ...purchase.clickIds, google: null } }, ACTION);
    expect(enhanced).not.toHaveProperty('gclid');
    expect(googleCanTake(enhanced)).toBe(true);
    const none = googleClickConversion(
      { ...purchase, email: '', phone: '', clickIds: { ...purchase.clickIds, google: null } },
      ACTION,
    );
    expect(googleCanTake(none)).toBe(false);
  });

  it('asks for partial failures, and reads them back by the index of the conversion', () => {
    expect(JSON.parse(googleUploadBody([googleClickConversion(purchase, ACTION)]))).toMatchObject({
      partialFailure: true,
    });
    const answer = {
      results: [{}, { gclid: 'b' }, {}],
      partialFailureError: {
        code: 3,
        message: 'The request contains invalid conversions.',
        details: [
          {
            '@type': 'type.googleapis.com/google.ads.googleads.v21.errors.GoogleAdsFailure',
            errors: [
              {
                errorCode: { conversionUploadError: 'UNPARSEABLE_GCLID' },
                message: 'The click ID could not be decoded.',
                location: { fieldPathElements: [{ fieldName: 'conversions', index: 0 }, { fieldName: 'gclid' }] },
              },
              {
                errorCode: { conversionUploadError: 'CONVERSION_PRECEDES_EVENT' },
                message: 'The conversion precedes the click.',
                location: { fieldPathElements: [{ fieldName: 'conversions', index: 2 }] },
              },
            ],
          },
        ],
      },
    };
    expect([...googleRefusedConversions(answer)]).toEqual([
      [0, 'UNPARSEABLE_GCLID: The click ID could not be decoded.'],
      [2, 'CONVERSION_PRECEDES_EVENT: The conversion precedes the click.'],
    ]);
    expect(googleRefusedConversions({ results: [{ gclid: 'a' }] }).size).toBe(0);
    expect(googleRefusedConversions(null).size).toBe(0);
  });

  it('formats times as the API takes them, in UTC', () => {
    expect(googleDateTime('2026-11-20T13:05:09+01:00')).toBe('2026-11-20 12:05:09+00:00');
  });
});

describe('TikTok events', () => {
  it('is a CompletePayment with the order id, the ttclid and the hashed email and phone', () => {
    expect(tiktokEvent(purchase)).toEqual({
      event: 'CompletePayment',
      event_time: 1795176000,
      event_id: '7000000000000000123',
      user: {
        ttclid: 'E.C.P.CsABabc',
        email: sha256Hex('jane.doe@gmail.com'),
        phone: sha256Hex('+448444124653'),
        ip: '203.0.113.9',
        user_agent: 'Mozilla/5.0',
      },
      page: { url: 'https://shop.example/thank-you' },
      properties: {
        currency: 'EUR',
        value: 120.5,
        order_id: '7000000000000000123',
        content_type: 'product',
        contents: [{ content_id: '45737128657113', quantity: 2, price: 60.25 }],
      },
    });
  });

  it("names the pixel, and reads TikTok's verdict from its code", () => {
    expect(JSON.parse(tiktokTrackBody('C85O1JNV9S6R0CDU7VV0', [purchase]))).toMatchObject({
      event_source: 'web',
      event_source_id: 'C85O1JNV9S6R0CDU7VV0',
    });
    expect(tiktokVerdict({ code: 0, message: 'OK', data: {} })).toEqual({ ok: true });
    expect(tiktokVerdict({ code: 40001, message: 'Invalid access token' })).toEqual({
      ok: false,
      error: 'TikTok answered 40001: Invalid access token',
    });
    expect(() => tiktokTrackBody('C85O', [])).toThrow(RangeError);
  });
});
