/** The delivery handler with destinations of kind `klaviyo` (the `webhook` kind is covered by delivery-worker.test.ts). */
import type { WebhookDelivery } from '../../contracts/src/webhook-delivery';
import type { BackoffPolicy } from './backoff';
import type { AttemptResult, PostWebhookOptions } from './deliver';
import { createDeliveryHandler, type AttemptRecord, type DeliveryMsg, type HandledRecord } from './delivery-worker';
import type { DeliveryDestination, KlaviyoDeliveryDestination, NewDeadLetter } from './destination-repo';
import { klaviyoEventBody, klaviyoHeaders } from './klaviyo';
import { generateSecret } from './sign';

const NOW = Date.parse('2026-03-01T12:00:00Z');
const API_KEY = 'pk_0123456789abcdef0123456789abcdef01';
const PAYLOAD = {
  type: 'event',
  attributes: {
    time: '2026-03-01T11:59:58.000Z',
    value: 42.5,
    value_currency: 'USD',
    unique_id: 'tok-1',
    properties: { $value: 42.5 },
    metric: { data: { type: 'metric', attributes: { name: 'Checkout Started', service: 'open-attribution' } } },
    profile: { data: { type: 'profile', attributes: { email: 'jane@example.com', phone_number: '' } } },
  },
};
const DELIVERY: WebhookDelivery = {
  webhookId: 'msg_k1',
  storeId: 'st_one',
  destinationId: 'wd_kl',
  name: 'Checkout Started',
  eventId: 'ev-1',
  body: JSON.stringify(PAYLOAD),
  enqueuedAt: NOW - 1000,
};
const KLAVIYO: KlaviyoDeliveryDestination = {
  kind: 'klaviyo',
  storeId: 'st_one',
  destinationId: 'wd_kl',
  url: 'https://a.klaviyo.com/api/events',
  apiKey: { ok: true, value: API_KEY },
  enabled: true,
  disabledReason: null,
};
const POLICY: BackoffPolicy = { scheduleMs: [100, 200, 300], jitter: 0, maxRetryAfterMs: 60_000 };

function msgOf(deliveryCount: number, delivery: WebhookDelivery = DELIVERY) {
  const m = {
    subject: 'wh.st_one.wd_kl',
    seq: 7,
    data: Buffer.from(JSON.stringify(delivery)),
    deliveryCount,
    msgId: delivery.webhookId,
    acks: 0,
    naks: [] as Array<number | undefined>,
    ack: () => void m.acks++,
    nak: (d?: number) => void m.naks.push(d),
    working: () => undefined,
  };
  return m satisfies DeliveryMsg;
}

function setup(result: AttemptResult, destination: DeliveryDestination = KLAVIYO) {
  const posts: PostWebhookOptions[] = [];
  const deadLetters: NewDeadLetter[] = [];
  const disabled: string[] = [];
  const attempts: AttemptRecord[] = [];
  const handled: HandledRecord[] = [];
  const handle = createDeliveryHandler(
    {
      loadDestination: () => Promise.resolve(destination),
      disableDestination: (_s, d) => {
        disabled.push(d);
        return Promise.resolve();
      },
      deadLetter: (dl) => {
        deadLetters.push(dl);
        return Promise.resolve(1);
      },
      post: (o) => {
        posts.push(o);
        return Promise.resolve(result);
      },
      now: () => NOW,
      random: () => 0.5,
    },
    { timeoutMs: 1000, backoff: POLICY, userAgent: 'agent/1', workingEveryMs: 1000, requeueDelayMs: 777 },
    { attempt: (a) => attempts.push(a), handled: (h) => handled.push(h) },
  );
  return { handle, posts, deadLetters, disabled, attempts, handled };
}

const status = (s: number, retryAfterMs: number | null = null): AttemptResult => ({
  kind: 'failed',
  status: s,
  reason: 'status',
  error: `HTTP ${s}: {"errors":[{"code":"invalid"}]}`,
  retryAfterMs,
});

describe('delivery to a klaviyo destination', () => {
  it('POSTs the wrapped payload with the Klaviyo headers and acks the 202', async () => {
    const t = setup({ kind: 'delivered', status: 202 });
    const msg = msgOf(1);
    await expect(t.handle(msg)).resolves.toBe('delivered');
    expect(msg.acks).toBe(1);
    expect(t.posts).toEqual([
      {
        url: KLAVIYO.url,
        body: klaviyoEventBody(DELIVERY.body),
        headers: klaviyoHeaders(API_KEY, 'agent/1'),
        timeoutMs: 1000,
        signal: undefined,
      },
    ]);
    expect(JSON.parse(t.posts[0]!.body)).toEqual({
      data: {
        ...PAYLOAD,
        attributes: {
          ...PAYLOAD.attributes,
          profile: { data: { type: 'profile', attributes: { email: 'jane@example.com' } } },
        },
      },
    });
    expect(t.posts[0]!.headers).not.toHaveProperty('webhook-signature');
    expect(t.attempts).toEqual([expect.objectContaining({ host: 'a.klaviyo.com', status: 202, outcome: 'delivered' })]);
    // The key never reaches what is logged.
    expect(JSON.stringify([t.attempts, t.handled])).not.toContain(API_KEY);
  });

  it.each([
    ['429 with Retry-After', status(429, 5000), 1, 5000],
    ['429 asking for less than the schedule', status(429, 10), 2, 200],
    ['503', status(503), 1, 100],
    ['408', status(408), 1, 100],
    ['a timeout', { kind: 'failed', status: null, reason: 'timeout', error: 'timed out', retryAfterMs: null }, 3, 300],
  ] as const)('retries %s with the jittered schedule', async (_case, result, attempt, delay) => {
    const t = setup(result);
    const msg = msgOf(attempt);
    await expect(t.handle(msg)).resolves.toBe('retry');
    expect(msg.naks).toEqual([delay]);
    expect(t.deadLetters).toEqual([]);
  });

  it('dead-letters a 5xx once the schedule is exhausted', async () => {
    const t = setup(status(500));
    const msg = msgOf(4);
    await expect(t.handle(msg)).resolves.toBe('dead_letter');
    expect(msg.acks).toBe(1);
    expect(t.deadLetters[0]).toMatchObject({ attempts: 4, lastStatus: 500, body: DELIVERY.body });
  });

  it.each([400, 401, 403, 404, 413, 415, 422])(
    'dead-letters a %d at once, keeping the queued body for a redrive',
    async (s) => {
      const t = setup(status(s));
      const msg = msgOf(1);
      await expect(t.handle(msg)).resolves.toBe('dead_letter');
      expect(msg.acks).toBe(1);
      expect(msg.naks).toEqual([]);
      expect(t.deadLetters).toEqual([
        {
          storeId: 'st_one',
          destinationId: 'wd_kl',
          webhookId: 'msg_k1',
          eventName: 'Checkout Started',
          body: DELIVERY.body,
          attempts: 1,
          lastStatus: s,
          lastError: `HTTP ${s}: {"errors":[{"code":"invalid"}]}; refused by Klaviyo, not retried`,
        },
      ]);
      expect(t.attempts[0]).toMatchObject({ status: s, statusClass: '4xx', outcome: 'dead_letter' });
      expect(t.handled[0]).toMatchObject({ outcome: 'dead_letter', reason: 'refused by Klaviyo' });
    },
  );

  it('a webhook destination still retries a 400 (only Klaviyo answers are judged final)', async () => {
    const webhook: DeliveryDestination = { ...KLAVIYO, kind: 'webhook', secrets: [generateSecret()] };
    const t = setup(status(400), webhook);
    const msg = msgOf(1);
    await expect(t.handle(msg)).resolves.toBe('retry');
    expect(msg.naks).toEqual([100]);
    expect(t.posts[0]!.headers).toHaveProperty('webhook-signature');
    expect(t.posts[0]!.body).toBe(DELIVERY.body);
  });

  it('disables the destination on 410, like every destination', async () => {
    const t = setup({ kind: 'gone', status: 410, error: 'HTTP 410' });
    await expect(t.handle(msgOf(1))).resolves.toBe('disabled');
    expect(t.disabled).toEqual(['wd_kl']);
    expect(t.deadLetters[0]).toMatchObject({ lastStatus: 410, lastError: 'HTTP 410; destination disabled' });
  });

  it('dead-letters without a POST when the key cannot be read', async () => {
    const t = setup(
      { kind: 'delivered', status: 202 },
      { ...KLAVIYO, apiKey: { ok: false, error: 'SECRETS_KEY is not configured, so the stored key cannot be read' } },
    );
    const msg = msgOf(2);
    await expect(t.handle(msg)).resolves.toBe('dead_letter');
    expect(t.posts).toEqual([]);
    expect(msg.acks).toBe(1);
    expect(t.deadLetters[0]).toMatchObject({
      attempts: 1,
      lastStatus: null,
      lastError: 'cannot authenticate to Klaviyo: SECRETS_KEY is not configured, so the stored key cannot be read',
    });
  });

  it('dead-letters without a POST a queued body that is not an event', async () => {
    const t = setup({ kind: 'delivered', status: 202 });
    const msg = msgOf(1, { ...DELIVERY, body: '"just a string"' });
    await expect(t.handle(msg)).resolves.toBe('dead_letter');
    expect(t.posts).toEqual([]);
    expect(t.deadLetters[0]).toMatchObject({
      lastError: 'cannot make the Klaviyo request: the queued body is not an event object with attributes',
    });
  });
});
