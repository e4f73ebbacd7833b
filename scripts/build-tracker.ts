/**
 * Builds the store-side tracker into tracker/dist (run by `make run` / `make test` when the sources changed,
 * by the integration tests' setup, and by `npm run tracker:build`):
 *   t.js, t.js.gz          the snippet served at /t.js (minified; fails the build above 8 KB gzip)
 *   manifest.json          its version (package version and content hash), sizes and digest
 *   shopify/custom-pixel.js                       to paste in Shopify's Customer events
 *   shopify/web-pixel/{shopify.extension.toml, package.json, src/index.js}   the Web Pixel app extension
 * Both Shopify files are built from tracker/shopify/forward.ts.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { build, type BuildOptions } from 'esbuild';

const ROOT = path.join(__dirname, '..');
export const TRACKER_DIST = path.join(ROOT, 'tracker', 'dist');
/** The snippet must stay under this many bytes once gzipped. */
export const SNIPPET_GZIP_LIMIT = 8 * 1024;
const VERSION_PLACEHOLDER = '__OA_VERSION_PLACEHOLDER__';

export interface TrackerManifest {
  version: string;
  file: string;
  bytes: number;
  gzipBytes: number;
  sha256: string;
}

const common: BuildOptions = {
  bundle: true,
  write: false,
  target: ['es2017'],
  legalComments: 'none',
  logLevel: 'silent',
};

async function bundle(options: BuildOptions): Promise<string> {
  const result = await build({ ...common, ...options });
  const out = result.outputFiles?.[0];
  if (!out) throw new Error(`esbuild produced nothing for ${JSON.stringify(options.entryPoints)}`);
  return out.text;
}

function packageVersion(): string {
  const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string };
  return pkg.version;
}

function write(file: string, content: string | Buffer): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, content);
}

async function buildSnippet(): Promise<TrackerManifest> {
  const code = await bundle({
    entryPoints: [path.join(ROOT, 'tracker/src/main.ts')],
    format: 'iife',
    minify: true,
    define: { __OA_VERSION__: JSON.stringify(VERSION_PLACEHOLDER) },
  });
  const version = `${packageVersion()}-${createHash('sha256').update(code).digest('hex').slice(0, 10)}`;
  const text = `/*! Open Attribution tracker ${version} */\n${code.replace(VERSION_PLACEHOLDER, version)}`;
  const gzip = zlib.gzipSync(text, { level: 9 });
  if (gzip.length > SNIPPET_GZIP_LIMIT) {
    throw new Error(`t.js is ${gzip.length} bytes gzipped, above the limit of ${SNIPPET_GZIP_LIMIT}`);
  }
  write(path.join(TRACKER_DIST, 't.js'), text);
  write(path.join(TRACKER_DIST, 't.js.gz'), gzip);
  const manifest: TrackerManifest = {
    version,
    file: 't.js',
    bytes: Buffer.byteLength(text),
    gzipBytes: gzip.length,
    sha256: createHash('sha256').update(text).digest('hex'),
  };
  write(path.join(TRACKER_DIST, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  return manifest;
}

async function buildShopify(version: string): Promise<void> {
  const header = `// Open Attribution ${version}: Shopify custom pixel, generated from tracker/shopify/forward.ts.\n`;
  const pixel = await bundle({
    entryPoints: [path.join(ROOT, 'tracker/shopify/custom-pixel.ts')],
    format: 'iife',
    banner: {
      js:
        `${header}// Paste it in Shopify admin > Settings > Customer events > Add custom pixel, after filling in\n` +
        `// your ingest key and the URL of your Open Attribution API:\n` +
        `const OA_SETTINGS = { ingestKey: "ik_REPLACE_ME", endpoint: "https://attribution.example.com" };\n`,
    },
  });
  write(path.join(TRACKER_DIST, 'shopify', 'custom-pixel.js'), pixel);

  const extensionDir = path.join(TRACKER_DIST, 'shopify', 'web-pixel');
  const extension = await bundle({
    entryPoints: [path.join(ROOT, 'tracker/shopify/extension/src/index.ts')],
    format: 'esm',
    external: ['@shopify/web-pixels-extension'],
    banner: { js: `${header.replace('custom pixel', 'Web Pixel app extension')}` },
  });
  write(path.join(extensionDir, 'src', 'index.js'), extension);
  fs.copyFileSync(
    path.join(ROOT, 'tracker/shopify/extension/shopify.extension.toml'),
    path.join(extensionDir, 'shopify.extension.toml'),
  );
  const pkg = {
    name: 'open-attribution-web-pixel',
    version: packageVersion(),
    private: true,
    main: 'src/index.js',
    dependencies: { '@shopify/web-pixels-extension': '^2.18.0' },
  };
  write(path.join(extensionDir, 'package.json'), `${JSON.stringify(pkg, null, 2)}\n`);
}

/** Builds everything into tracker/dist; throws when the snippet is over its size limit. */
export async function buildTracker(): Promise<TrackerManifest> {
  const manifest = await buildSnippet();
  await buildShopify(manifest.version);
  return manifest;
}

if (require.main === module) {
  buildTracker()
    .then((m) => {
      console.error(
        `tracker: t.js ${m.version}: ${m.bytes} bytes, ${m.gzipBytes} bytes gzipped (limit ${SNIPPET_GZIP_LIMIT}); ` +
          'Shopify custom pixel and web pixel extension in tracker/dist/shopify',
      );
    })
    .catch((err: unknown) => {
      console.error(`tracker: build failed: ${err instanceof Error ? err.message : String(err)}`);
      process.exit(1);
    });
}
