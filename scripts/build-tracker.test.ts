/** The tracker build: one small snippet with its version inside, and both Shopify pixels from one source. */
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { buildTracker, SNIPPET_GZIP_LIMIT, TRACKER_DIST } from './build-tracker';

const read = (file: string): string => fs.readFileSync(path.join(TRACKER_DIST, file), 'utf8');

describe('buildTracker', () => {
  it('writes t.js under 8 KB gzip, versioned by package version and content hash', async () => {
    const manifest = await buildTracker();
    const pkg = JSON.parse(fs.readFileSync(path.join(__dirname, '..', 'package.json'), 'utf8')) as { version: string };
    expect(manifest.version).toMatch(new RegExp(`^${pkg.version.replace(/\./g, '\\.')}-[0-9a-f]{10}$`));
    const snippet = read('t.js');
    expect(snippet.startsWith(`/*! Open Attribution tracker ${manifest.version} */`)).toBe(true);
    expect(snippet).toContain(`"${manifest.version}"`); // exposed as oa.v
    expect(manifest.bytes).toBe(Buffer.byteLength(snippet));
    expect(zlib.gunzipSync(fs.readFileSync(path.join(TRACKER_DIST, 't.js.gz'))).toString('utf8')).toBe(snippet);
    expect(manifest.gzipBytes).toBeLessThan(SNIPPET_GZIP_LIMIT);
    // Same sources, same version.
    expect((await buildTracker()).version).toBe(manifest.version);
  });

  it('builds the custom pixel and the app extension from the same forwarding code', async () => {
    await buildTracker();
    const pixel = read('shopify/custom-pixel.js');
    const extension = read('shopify/web-pixel/src/index.js');
    expect(pixel.split('\n').find((l) => l.startsWith('const OA_SETTINGS'))).toBe(
      'const OA_SETTINGS = { ingestKey: "ik_REPLACE_ME", endpoint: "https://attribution.example.com" };',
    );
    expect(extension).toContain('import { register } from "@shopify/web-pixels-extension";');
    for (const code of [pixel, extension]) {
      expect(code).toContain('// tracker/shopify/forward.ts');
      expect(code).toContain('subscribe("all_standard_events"');
    }
    const toml = read('shopify/web-pixel/shopify.extension.toml');
    expect(toml).toContain('type = "web_pixel_extension"');
    expect(toml).toMatch(/\[customer_privacy\]\nanalytics = true/);
    expect(toml).toContain('[settings.fields.ingestKey]');
    expect(toml).toContain('[settings.fields.endpoint]');
  });
});
