/**
 * Builds the dashboard (dashboard/src, Preact + uPlot) into dashboard/dist (run by `make run` / `make test` when
 * its sources changed, by the integration tests' setup, and by `npm run dashboard:build`):
 *   index.html                       the page, naming the assets by content hash
 *   assets/app-<hash>.js, .css       minified bundles, served with a year of caching (immutable)
 *   manifest.json                    the file names and their sizes, plain and gzipped (the API gzips them)
 * The build reports the bundle size and fails above DASHBOARD_GZIP_LIMIT.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { build } from 'esbuild';

const ROOT = path.join(__dirname, '..');
export const DASHBOARD_DIST = path.join(ROOT, 'dashboard', 'dist');
/** JavaScript and CSS together must stay under this many bytes gzipped: the page is meant to paint in well under a second. */
export const DASHBOARD_GZIP_LIMIT = 60 * 1024;

export interface DashboardAsset {
  file: string;
  bytes: number;
  gzipBytes: number;
}

export interface DashboardManifest {
  js: DashboardAsset;
  css: DashboardAsset;
  totalGzipBytes: number;
}

function emit(name: string, ext: string, content: Uint8Array): DashboardAsset {
  const hash = createHash('sha256').update(content).digest('hex').slice(0, 12);
  const file = `assets/${name}-${hash}.${ext}`;
  const gzip = zlib.gzipSync(content, { level: 9 });
  fs.mkdirSync(path.join(DASHBOARD_DIST, 'assets'), { recursive: true });
  fs.writeFileSync(path.join(DASHBOARD_DIST, file), content);
  return { file, bytes: content.length, gzipBytes: gzip.length };
}

export async function buildDashboard(): Promise<DashboardManifest> {
  const result = await build({
    entryPoints: [path.join(ROOT, 'dashboard/src/main.tsx')],
    bundle: true,
    write: false,
    minify: true,
    format: 'iife',
    target: ['es2020'],
    jsx: 'automatic',
    jsxImportSource: 'preact',
    outdir: 'out',
    legalComments: 'none',
    logLevel: 'silent',
  });
  const js = result.outputFiles.find((f) => f.path.endsWith('.js'));
  const css = result.outputFiles.find((f) => f.path.endsWith('.css'));
  if (!js || !css) throw new Error('esbuild produced no JavaScript or no CSS for the dashboard');
  fs.rmSync(DASHBOARD_DIST, { recursive: true, force: true });
  const manifest: DashboardManifest = {
    js: emit('app', 'js', js.contents),
    css: emit('app', 'css', css.contents),
    totalGzipBytes: 0,
  };
  manifest.totalGzipBytes = manifest.js.gzipBytes + manifest.css.gzipBytes;
  if (manifest.totalGzipBytes > DASHBOARD_GZIP_LIMIT) {
    throw new Error(
      `the dashboard is ${manifest.totalGzipBytes} bytes gzipped, above the limit of ${DASHBOARD_GZIP_LIMIT}`,
    );
  }
  const html = fs
    .readFileSync(path.join(ROOT, 'dashboard/index.html'), 'utf8')
    .replace('__JS__', `/dashboard/${manifest.js.file}`)
    .replace('__CSS__', `/dashboard/${manifest.css.file}`);
  fs.writeFileSync(path.join(DASHBOARD_DIST, 'index.html'), html);
  fs.writeFileSync(path.join(DASHBOARD_DIST, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  return manifest;
}

if (require.main === module) {
  buildDashboard()
    .then((m) => {
      console.error(
        `dashboard: ${m.js.file} ${m.js.bytes} bytes (${m.js.gzipBytes} gzipped), ${m.css.file} ${m.css.bytes} bytes ` +
          `(${m.css.gzipBytes} gzipped); ${m.totalGzipBytes} bytes gzipped in all (limit ${DASHBOARD_GZIP_LIMIT})`,
      );
    })
    .catch((err: unknown) => {
      console.error(`dashboard: build failed: ${err instanceof Error ? err.message : String(err)}`);
      process.exit(1);
    });
}
