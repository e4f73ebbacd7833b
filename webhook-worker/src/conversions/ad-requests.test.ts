import { DEFAULT_AD_PLATFORM_ENDPOINTS } from '../../../contracts/src/ad-platform-endpoints';
import { adPlatformRequest, judgeAdAnswer, type AdAnswer } from './ad-requests';
import type { QueuedPurchase } from '../../../contracts/src/ad-conversions';
import { conversionFixture } from '../../../test/support/fake-conversion-apis';

const answer = (status: number, body: unknown, retryAfterMs: number | null = null): AdAnswer => ({
  status,
  body,
  text: JSON.stringify(body),
  retryAfterMs,
});

const purchase: QueuedPurchase = {
  orderId: '7000000000000000123',
  occurredAt: '2026-11-20T12:00:00.000Z',
  value: '10.00',
  currency: 'USD',
  lines: [],
  pageUrl: '',
  email: 'a@example.com',
  phone: '',
  firstName: '',
  lastName: '',
  clientIp: '',
  userAgent: '',
  fbp: '',
  clickIds: { fbc: null, google: { kind: 'gclid', value: 'G1' }, ttclid: null },
};

describe('adPlatformRequest', () => {
  it("addresses each platform's endpoint under the configured base URL and authenticates as it asks", () => {
    const ep = { ...DEFAULT_AD_PLATFORM_ENDPOINTS, metaGraphUrl: 'http://127.0.0.1:9', tiktokApiUrl: 'http://t' };
    const meta = adPlatformRequest(
      { kind: 'meta_capi', pixelId: '123456', testEventCode: null },
      [purchase],
      { kind: 'token', token: 'T' },
      ep,
      'ua',
    );
    expect(meta.url).toBe('http://127.0.0.1:9/v21.0/123456/events');
    expect(JSON.parse(meta.body)).toMatchObject({ access_token: 'T', data: [{ event_id: purchase.orderId }] });
    const google = adPlatformRequest(
      { kind: 'google_ads', customerId: '1234567890', conversionAction: 'customers/1234567890/conversionActions/1' },
      [purchase],
      { kind: 'google', accessToken: 'A', developerToken: 'D', loginCustomerId: '999' },
      ep,
      'ua',
    );
    expect(google.url).toBe('https://googleads.googleapis.com/v18/customers/1234567890:uploadClickConversions');
    expect(google.headers).toMatchObject({
      authorization: 'Bearer A',
      'developer-token': 'D',
      'login-customer-id': '999',
    });
    const tiktok = adPlatformRequest(
      { kind: 'tiktok_events', pixelCode: 'C85O1JNV9S', testEventCode: 'TEST1' },
      [purchase],
      { kind: 'token', token: 'K' },
      ep,
      'ua',
    );
    expect(tiktok.url).toBe('http://t/open_api/v1.3/event/track/');
    expect(tiktok.headers['access-token']).toBe('K');
    expect(JSON.parse(tiktok.body)).toMatchObject({ test_event_code: 'TEST1' });
  });
});

describe('judgeAdAnswer', () => {
  it('Meta: a 200 took every event, its messages are notes; throttling retries; 190 is the credential; others refuse', () => {
    expect(
      judgeAdAnswer('meta_capi', answer(200, { events_received: 2, messages: ['m'], fbtrace_id: 'x' }), 2),
    ).toEqual({
      kind: 'answered',
      verdicts: [{ ok: true }, { ok: true }],
      notes: ['m'],
    });
    expect(judgeAdAnswer('meta_capi', answer(400, { error: { code: 4, message: 'limit' } }, 2000), 1)).toMatchObject({
      kind: 'retry',
      retryAfterMs: 2000,
    });
    expect(judgeAdAnswer('meta_capi', answer(400, { error: { code: 190, message: 'expired' } }), 1).kind).toBe('auth');
    expect(
      judgeAdAnswer(
        'meta_capi',
        answer(400, { error: { code: 100, error_subcode: 2804003, message: 'Invalid parameter' } }),
        3,
      ),
    ).toEqual({
      kind: 'refused',
      error: 'Meta error 100/2804003: Invalid parameter',
    });
    expect(judgeAdAnswer('meta_capi', answer(503, null), 1).kind).toBe('retry');
    // The business-use-case limits of Meta's rate-limiting pages, and the permission codes of "Handling Errors".
    for (const code of [80000, 80003, 80014, 613, 368]) {
      expect(judgeAdAnswer('meta_capi', answer(400, { error: { code, message: 'limit' } }), 2).kind).toBe('retry');
    }
    for (const code of [10, 200, 294]) {
      expect(judgeAdAnswer('meta_capi', answer(403, { error: { code, message: 'permission' } }), 2).kind).toBe('auth');
    }
  });

  it("Google: a partialFailureError refuses its conversions by index; RESOURCE_EXHAUSTED retries after Google's delay", () => {
    const partial = {
      results: [{}, { gclid: 'b' }],
      partialFailureError: {
        details: [
          {
            errors: [
              {
                errorCode: { conversionUploadError: 'UNPARSEABLE_GCLID' },
                message: 'The imported gclid could not be decoded.',
                location: { fieldPathElements: [{ fieldName: 'conversions', index: 0 }] },
              },
            ],
          },
        ],
      },
    };
    expect(judgeAdAnswer('google_ads', answer(200, partial), 2)).toEqual({
      kind: 'answered',
      verdicts: [
        { ok: false, error: 'refused by Google: UNPARSEABLE_GCLID: The imported gclid could not be decoded.' },
        { ok: true },
      ],
      notes: [],
    });
    const exhausted = { error: { status: 'RESOURCE_EXHAUSTED', message: 'quota', details: [{ retryDelay: '7s' }] } };
    expect(judgeAdAnswer('google_ads', answer(429, exhausted), 1)).toMatchObject({ kind: 'retry', retryAfterMs: 7000 });
    expect(
      judgeAdAnswer('google_ads', answer(401, { error: { status: 'UNAUTHENTICATED', message: 'x' } }), 1).kind,
    ).toBe('auth');
    expect(
      judgeAdAnswer('google_ads', answer(400, { error: { status: 'INVALID_ARGUMENT', message: 'x' } }), 2).kind,
    ).toBe('refused');
  });

  it('TikTok: its code decides, whatever the HTTP status', () => {
    expect(judgeAdAnswer('tiktok_events', answer(200, { code: 0, message: 'OK' }), 1).kind).toBe('answered');
    expect(judgeAdAnswer('tiktok_events', answer(200, { code: 40100, message: 'Too many requests' }), 1).kind).toBe(
      'retry',
    );
    expect(judgeAdAnswer('tiktok_events', answer(200, { code: 40105, message: 'expired' }), 1).kind).toBe('auth');
    expect(judgeAdAnswer('tiktok_events', answer(200, { code: 40002, message: 'bad param' }), 2)).toEqual({
      kind: 'refused',
      error: 'TikTok code 40002: bad param',
    });
    expect(judgeAdAnswer('tiktok_events', answer(502, '<html>'), 1).kind).toBe('retry');
    // The codes of TikTok's Business API SDK (tiktok_business/tiktok_code.py).
    expect(judgeAdAnswer('tiktok_events', answer(200, { code: 40102, message: 'expired' }), 1).kind).toBe('auth');
    for (const code of [40132, 51010, 52001, 60001, 61000]) {
      expect(judgeAdAnswer('tiktok_events', answer(200, { code, message: 'later' }), 2).kind).toBe('retry');
    }
  });

  it('reads the recorded answers of test/fixtures as their platforms meant them', () => {
    const fixture = conversionFixture;
    // Meta: the recorded "Event Timestamp Too Old" refusal, the ad-account throttle, an expired session.
    expect(judgeAdAnswer('meta_capi', answer(400, fixture('meta/capi-error-invalid-parameter.json')), 1)).toEqual({
      kind: 'refused',
      error:
        'Meta error 100/2804003: Event Timestamp Too Old: The timestamp for this event is too far in the past. ' +
        'Events need to be sent from your server within 7 days of when they occurred. ' +
        'Enter a timestamp that has occurred within the last 7 days.',
    });
    expect(judgeAdAnswer('meta_capi', answer(400, fixture('meta/error-rate-limit.json')), 2).kind).toBe('retry');
    expect(judgeAdAnswer('meta_capi', answer(400, fixture('meta/error-expired-token.json')), 2).kind).toBe('auth');
    // Google: the recorded partial failure refuses the second of two conversions and takes the first.
    expect(
      judgeAdAnswer('google_ads', answer(200, fixture('google-ads/upload-click-conversions-partial-failure.json')), 2),
    ).toEqual({
      kind: 'answered',
      verdicts: [
        { ok: true },
        { ok: false, error: 'refused by Google: UNPARSEABLE_GCLID: The imported gclid could not be decoded.' },
      ],
      notes: [],
    });
    expect(judgeAdAnswer('google_ads', answer(200, fixture('google-ads/upload-click-conversions-ok.json')), 1)).toEqual(
      {
        kind: 'answered',
        verdicts: [{ ok: true }],
        notes: [],
      },
    );
    expect(judgeAdAnswer('google_ads', answer(401, fixture('google-ads/error-unauthenticated.json')), 1).kind).toBe(
      'auth',
    );
    // TikTok: its code decides; the recorded answers of its v1.3 Business API.
    expect(judgeAdAnswer('tiktok_events', answer(200, fixture('tiktok/events-track-ok.json')), 2).kind).toBe(
      'answered',
    );
    expect(judgeAdAnswer('tiktok_events', answer(200, fixture('tiktok/events-track-invalid-param.json')), 2)).toEqual({
      kind: 'refused',
      error: 'TikTok code 40002: Batch.0.properties.contents.0.content_id: Not a valid string',
    });
    expect(judgeAdAnswer('tiktok_events', answer(200, fixture('tiktok/events-track-no-permission.json')), 2).kind).toBe(
      'auth',
    );
    expect(judgeAdAnswer('tiktok_events', answer(200, fixture('tiktok/error-rate-limit.json')), 2).kind).toBe('retry');
    expect(judgeAdAnswer('tiktok_events', answer(200, fixture('tiktok/error-expired-token.json')), 2).kind).toBe(
      'auth',
    );
  });
});
