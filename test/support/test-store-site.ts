/**
 * The test store's web server: the static pages of test/fixtures/test-store (a tiny single-page app that
 * pastes the tracker snippet, and sandboxes for the Shopify pixels), plus the two routes of Shopify's Ajax
 * cart API the tracker's identity hand-off uses (`GET /cart.js`, `POST /cart/update.js`), keyed by a `cart`
 * cookie as Shopify does. It runs on 127.0.0.1 on a port of its own; the API is another origin.
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { TRACKER_DIST } from '../../scripts/build-tracker';

const FIXTURES = path.join(__dirname, '..', 'fixtures', 'test-store');

export interface SnippetOptions {
  key: string;
  requireConsent?: boolean;
  cart?: 'shopify';
}

export interface PixelSettings {
  ingestKey: string;
  endpoint: string;
}

export interface TestStoreSite {
  url: string;
  /** What `oa('init', ...)` receives on the store's pages; change it before loading a page. */
  snippet: SnippetOptions;
  /** The merchant's settings of both Shopify pixels; change them before loading a pixel page. */
  pixel: PixelSettings;
  /** Cart attributes by cart token, as the store's backend would copy them into the order. */
  carts: Map<string, Record<string, string>>;
  close(): Promise<void>;
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'application/javascript; charset=utf-8',
};

function cookieOf(req: http.IncomingMessage, name: string): string | undefined {
  const m = new RegExp(`(?:^|;\\s*)${name}=([^;]*)`).exec(req.headers.cookie ?? '');
  return m?.[1];
}

function readBody(req: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (body += c));
    req.on('end', () => resolve(body));
    req.on('error', reject);
  });
}

export async function startTestStoreSite(apiUrl: string, ingestKey: string): Promise<TestStoreSite> {
  const carts = new Map<string, Record<string, string>>();
  const site: Omit<TestStoreSite, 'url' | 'close'> = {
    snippet: { key: ingestKey, cart: 'shopify' },
    pixel: { ingestKey, endpoint: apiUrl },
    carts,
  };

  const file = (name: string): string => fs.readFileSync(path.join(FIXTURES, name), 'utf8');
  const pages: Record<string, () => string> = {
    '/app.js': () => file('app.js'),
    '/plain.html': () => file('plain.html'),
    '/pixel.html': () => file('pixel.html'),
    '/extension.html': () => file('extension.html').replace('__OA_SETTINGS__', JSON.stringify(site.pixel)),
    '/stub-register.js': () => file('stub-register.js'),
    // The built pixels, with the merchant's settings filled in where the custom pixel asks for them.
    '/custom-pixel.js': () =>
      fs
        .readFileSync(path.join(TRACKER_DIST, 'shopify', 'custom-pixel.js'), 'utf8')
        .replace('"ik_REPLACE_ME"', JSON.stringify(site.pixel.ingestKey))
        .replace('"https://attribution.example.com"', JSON.stringify(site.pixel.endpoint)),
    '/extension/index.js': () =>
      fs.readFileSync(path.join(TRACKER_DIST, 'shopify', 'web-pixel', 'src', 'index.js'), 'utf8'),
  };

  const cartJson = (token: string) => ({ token, attributes: carts.get(token) ?? {}, item_count: 0 });

  const server = http.createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', 'http://store.test');
      if (url.pathname === '/cart.js' || url.pathname === '/cart/update.js') {
        let token = cookieOf(req, 'cart');
        if (url.pathname === '/cart/update.js' && req.method === 'POST') {
          const body = JSON.parse((await readBody(req)) || '{}') as { attributes?: Record<string, string> };
          if (!token) {
            token = randomUUID();
            res.setHeader('Set-Cookie', `cart=${token}; Path=/; SameSite=Lax`);
          }
          carts.set(token, { ...(carts.get(token) ?? {}), ...(body.attributes ?? {}) });
        }
        res.writeHead(200, { 'Content-Type': 'application/json' });
        return void res.end(JSON.stringify(token ? cartJson(token) : { token: null, attributes: {}, item_count: 0 }));
      }
      const page = pages[url.pathname];
      const body = page
        ? page()
        : file('index.html').replace('__OA_OPTIONS__', JSON.stringify(site.snippet)).replace('__OA_API__', apiUrl);
      res.writeHead(200, {
        'Content-Type': TYPES[page ? path.extname(url.pathname) : '.html'] ?? TYPES['.html']!,
        'Cache-Control': 'no-store',
      });
      res.end(body);
    })().catch((err: unknown) => {
      res.writeHead(500);
      res.end(String(err));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(site, {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
}
