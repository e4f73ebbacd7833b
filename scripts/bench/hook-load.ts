/**
 * A load of signed Shopify order webhooks, as several shops send them: for each order an `orders/create` and a
 * later `orders/updated` (another total), each delivery signed over its exact bytes with its shop's secret. Used
 * by `npm run bench -- hooks` and by the store-hooks load test, so that both send the same thing. The body is
 * Shopify's recorded sample order (test/fixtures/shopify/orders-create.json) made live, about 10 KB.
 */
import { createHmac } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

const SAMPLE = fs.readFileSync(
  path.join(__dirname, '..', '..', 'test', 'fixtures', 'shopify', 'orders-create.json'),
  'utf8',
);

export interface HookLoadShop {
  connectionId: string;
  /** The connection's myshopify.com domain. */
  shop: string;
  secret: string;
}

export interface HookDelivery {
  connectionId: string;
  shop: string;
  topic: 'orders/create' | 'orders/updated';
  webhookId: string;
  orderId: string;
  body: Buffer;
  signature: string;
}

/** What the newest version of each order says: its id and total in micros (the update's). */
export interface ExpectedOrder {
  connectionId: string;
  orderId: string;
  valueMicros: number;
}

/** Order ids above 2^53, distinct per shop and order, as Shopify's are. */
const orderIdOf = (shop: number, n: number): string =>
  `${7_000_000_000_000_000_000n + BigInt(shop) * 1_000_000n + BigInt(n)}`;

/** A buyer of the order's own (the sample's customer would join every order into one person), above 2^53 too. */
const customerIdOf = (orderId: string): string => `${BigInt(orderId) - 1_000_000_000_000_000_000n}`;

function orderBody(id: string, version: 'create' | 'update', total: string): Buffer {
  const text = SAMPLE.replace(/"id":820982911946154508/, `"id":${id}`)
    .replace('"cancelled_at":"2021-12-31T19:00:00-05:00"', '"cancelled_at":null')
    .replace('"test":true', '"test":false')
    .replace('"total_price":"404.95"', `"total_price":"${total}"`)
    .replace(
      '"updated_at":"2021-12-31T19:00:00-05:00"',
      `"updated_at":"${version === 'create' ? '2021-12-31T19:00:00-05:00' : '2022-01-01T09:30:00-05:00'}"`,
    )
    .replaceAll('115310627314723954', customerIdOf(id))
    .replaceAll('john@example.com', `buyer-${id}@example.com`)
    .replaceAll('jon@example.com', `buyer-${id}@example.com`);
  return Buffer.from(text);
}

/**
 * `ordersPerShop` orders for each shop, each delivered as `orders/create` then `orders/updated`: 2 x shops x
 * ordersPerShop deliveries, interleaved across shops (as several shops send at once). The update lowers the total
 * to a value of its own, so that the newest state is visible in what is stored.
 */
export function hookLoad(
  shops: readonly HookLoadShop[],
  ordersPerShop: number,
): { deliveries: HookDelivery[]; expected: ExpectedOrder[] } {
  const deliveries: HookDelivery[] = [];
  const expected: ExpectedOrder[] = [];
  for (let n = 0; n < ordersPerShop; n++) {
    shops.forEach((shop, s) => {
      const orderId = orderIdOf(s, n);
      const updatedCents = 10_000 + s * 1_000 + n;
      for (const version of ['create', 'update'] as const) {
        const total = version === 'create' ? '404.95' : (updatedCents / 100).toFixed(2);
        const body = orderBody(orderId, version, total);
        deliveries.push({
          connectionId: shop.connectionId,
          shop: shop.shop,
          topic: version === 'create' ? 'orders/create' : 'orders/updated',
          webhookId: `load-${s}-${n}-${version}`,
          orderId,
          body,
          signature: createHmac('sha256', shop.secret).update(body).digest('base64'),
        });
      }
      expected.push({ connectionId: shop.connectionId, orderId, valueMicros: updatedCents * 10_000 });
    });
  }
  return { deliveries, expected };
}

export interface HookAnswer {
  delivery: HookDelivery;
  status: number;
  /** The receipt's outcome (`published`, `duplicate`, ...), or the error message. */
  outcome: string;
  /** From sending the request to reading the whole answer, as the client sees it. */
  ms: number;
}

/** Sends `deliveries` to the API at `apiUrl`, `concurrency` in flight; every answer with its client-side time. */
export async function sendHookLoad(
  apiUrl: string,
  deliveries: readonly HookDelivery[],
  concurrency: number,
): Promise<HookAnswer[]> {
  const answers: HookAnswer[] = [];
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < deliveries.length) {
      const delivery = deliveries[next++]!;
      const t = performance.now();
      const res = await fetch(`${apiUrl}/hooks/shopify/${delivery.connectionId}`, {
        method: 'POST',
        headers: {
          'Content-Type': 'application/json',
          'X-Shopify-Topic': delivery.topic,
          'X-Shopify-Hmac-Sha256': delivery.signature,
          'X-Shopify-Shop-Domain': delivery.shop,
          'X-Shopify-API-Version': '2026-07',
          'X-Shopify-Webhook-Id': delivery.webhookId,
        },
        body: new Uint8Array(delivery.body),
      });
      const json = (await res.json().catch(() => ({}))) as { data?: { outcome?: string }; message?: string };
      answers.push({
        delivery,
        status: res.status,
        outcome: json.data?.outcome ?? json.message ?? '',
        ms: performance.now() - t,
      });
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return answers;
}
