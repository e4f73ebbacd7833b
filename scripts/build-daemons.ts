/**
 * The operator's build (`npm run build`; `make run` and `make test` run it when the sources changed): the
 * daemons' TypeScript as plain CommonJS JavaScript with source maps under `dist/`, one file per source file in
 * the same tree, so that production starts `node --enable-source-maps dist/<daemon>/src/app/main.js` without
 * tsx's esbuild service beside each daemon (docs/operations.md, Processes). Scripts and tests keep running
 * TypeScript through tsx.
 *
 * The code finds its files (migrations, stream definitions, the OpenAPI document, the tracker's and the
 * dashboard's builds) by paths relative to its own: those folders are linked into `dist/` where the code
 * expects them.
 */
import fs from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';

const ROOT = path.join(__dirname, '..');
export const DAEMONS_DIST = path.join(ROOT, 'dist');

/** The folders whose code a daemon runs (the query API also serves the MCP server). */
const SOURCES = [
  'contracts/src',
  'runtime',
  'storage',
  'infra',
  'pipeline/src',
  'query-api/src',
  'webhook-worker/src',
  'mcp/src',
];

/** Files the code reads beside itself, linked into dist/ at the same relative place. */
const LINKED = ['infra/migrations', 'infra/nats', 'query-api/openapi', 'tracker/dist', 'dashboard/dist'];

/** The entry points of the three daemons, as built. */
export const DAEMON_ENTRIES = {
  pipeline: 'dist/pipeline/src/app/main.js',
  'query-api': 'dist/query-api/src/app/server.js',
  'webhook-worker': 'dist/webhook-worker/src/app/main.js',
} as const;

/** The files of `dir` a daemon may load: its TypeScript (tests left out) and the JSON it imports. */
function sourceFiles(dir: string, ext: '.ts' | '.json'): string[] {
  const out: string[] = [];
  for (const entry of fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
    const rel = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (!['node_modules', 'dist'].includes(entry.name)) out.push(...sourceFiles(rel, ext));
    } else if (entry.name.endsWith(ext) && !entry.name.endsWith(`.test${ext}`) && !entry.name.endsWith('.d.ts')) {
      out.push(rel);
    }
  }
  return out;
}

export async function buildDaemons(): Promise<{ files: number }> {
  const entryPoints = SOURCES.flatMap((d) => sourceFiles(d, '.ts')).map((f) => path.join(ROOT, f));
  fs.rmSync(DAEMONS_DIST, { recursive: true, force: true });
  await build({
    entryPoints,
    outdir: DAEMONS_DIST,
    outbase: ROOT,
    bundle: false,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    sourcemap: true,
    // tsoa's controllers use the legacy decorators (tsconfig experimentalDecorators).
    tsconfig: path.join(ROOT, 'tsconfig.json'),
    logLevel: 'warning',
  });
  const linked = (rel: string): boolean => LINKED.some((l) => rel.startsWith(`${l}/`));
  for (const rel of SOURCES.flatMap((d) => sourceFiles(d, '.json')).filter((f) => !linked(f))) {
    fs.mkdirSync(path.dirname(path.join(DAEMONS_DIST, rel)), { recursive: true });
    fs.copyFileSync(path.join(ROOT, rel), path.join(DAEMONS_DIST, rel));
  }
  for (const rel of LINKED) {
    const link = path.join(DAEMONS_DIST, rel);
    fs.mkdirSync(path.dirname(link), { recursive: true });
    fs.symlinkSync(path.relative(path.dirname(link), path.join(ROOT, rel)), link, 'dir');
  }
  // What was built and when: also the stamp make compares with the sources.
  fs.writeFileSync(
    path.join(DAEMONS_DIST, 'build.json'),
    `${JSON.stringify({ files: entryPoints.length, built_at: new Date().toISOString(), entries: DAEMON_ENTRIES }, null, 2)}\n`,
  );
  return { files: entryPoints.length };
}

if (require.main === module) {
  const started = Date.now();
  buildDaemons().then(
    ({ files }) => console.log(`daemons: ${files} files to dist/ in ${Date.now() - started} ms`),
    (err: unknown) => {
      console.error(err);
      process.exit(1);
    },
  );
}
