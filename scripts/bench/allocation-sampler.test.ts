import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

interface ProfileNode {
  callFrame: { functionName: string };
  selfSize: number;
  children?: ProfileNode[];
}

/** Bytes the profile charges to the functions of that name. */
function allocatedBy(node: ProfileNode, name: string): number {
  const own = node.callFrame.functionName === name ? node.selfSize : 0;
  return own + (node.children ?? []).reduce((sum, child) => sum + allocatedBy(child, name), 0);
}

describe('the allocation sampler preloaded by BENCH_ALLOC_PROFILE', () => {
  it('writes at exit a profile that counts what was allocated and already collected', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'alloc-profile-'));
    // About 70 MB of short-lived objects, none alive once it returns: a profile of live objects shows none.
    const script = `function makeGarbage() {
        const ring = new Array(1000);
        for (let i = 0; i < 1e6; i++) ring[i % 1000] = { i, pair: [i, i + 1] };
        return ring.length;
      }
      makeGarbage();`;
    execFileSync(
      process.execPath,
      ['--import', 'tsx', '--import', path.join(__dirname, 'allocation-sampler.ts'), '-e', script],
      { env: { ...process.env, BENCH_ALLOC_PROFILE: dir }, stdio: 'pipe' },
    );
    const files = fs.readdirSync(dir).filter((f) => f.endsWith('.heapprofile'));
    expect(files).toHaveLength(1);
    const profile = JSON.parse(fs.readFileSync(path.join(dir, files[0]!), 'utf8')) as { head: ProfileNode };
    expect(allocatedBy(profile.head, 'makeGarbage')).toBeGreaterThan(20_000_000);
    fs.rmSync(dir, { recursive: true });
  });
});
