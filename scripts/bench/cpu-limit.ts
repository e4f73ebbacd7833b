/**
 * A CPU quota for one process, so a bench can show how the daemon behaves on a slower machine than this one
 * (`npm run bench -- pipeline --daemon-cpu 0.5`): the process is moved into a cgroup of its own whose CPU
 * bandwidth is `fraction` of one core (cgroup v2 `cpu.max`, or v1 `cpu.cfs_quota_us`). Needs root and a
 * writable cgroup file system; otherwise it says so instead of measuring something else.
 */
import fs from 'node:fs';
import path from 'node:path';

const ROOT = '/sys/fs/cgroup';
const PERIOD_US = 100_000;

export interface CpuLimit {
  /** The cgroup's directory. */
  dir: string;
  /** Moves the processes back to the root group and removes the cgroup. */
  release(): void;
}

function cgroupDirs(name: string): { v2: boolean; dir: string; root: string } {
  if (fs.existsSync(path.join(ROOT, 'cgroup.controllers'))) return { v2: true, dir: path.join(ROOT, name), root: ROOT };
  const v1 = path.join(ROOT, 'cpu');
  if (fs.existsSync(path.join(v1, 'cpu.cfs_quota_us'))) return { v2: false, dir: path.join(v1, name), root: v1 };
  throw new Error(`--daemon-cpu needs a cgroup CPU controller under ${ROOT} (neither v2 nor v1's cpu was found)`);
}

export function limitCpu(pids: readonly number[], fraction: number, name = `attrib-bench-${process.pid}`): CpuLimit {
  if (!(fraction > 0)) throw new Error(`--daemon-cpu must be a positive fraction of one core, got ${fraction}`);
  const { v2, dir, root } = cgroupDirs(name);
  try {
    fs.mkdirSync(dir, { recursive: true });
    const quota = Math.round(fraction * PERIOD_US);
    if (v2) {
      // The cpu controller must be enabled for the root's children (it usually is where cgroup v2 is writable).
      const enabled = fs.readFileSync(path.join(ROOT, 'cgroup.subtree_control'), 'utf8');
      if (!enabled.split(/\s+/).includes('cpu')) fs.writeFileSync(path.join(ROOT, 'cgroup.subtree_control'), '+cpu');
      fs.writeFileSync(path.join(dir, 'cpu.max'), `${quota} ${PERIOD_US}`);
    } else {
      fs.writeFileSync(path.join(dir, 'cpu.cfs_period_us'), String(PERIOD_US));
      fs.writeFileSync(path.join(dir, 'cpu.cfs_quota_us'), String(quota));
    }
    for (const pid of pids) fs.writeFileSync(path.join(dir, 'cgroup.procs'), String(pid));
  } catch (err) {
    throw new Error(
      `--daemon-cpu: cannot set a CPU quota in ${dir} (root and a writable cgroup fs are needed): ${(err as Error).message}`,
    );
  }
  return {
    dir,
    release: () => {
      try {
        const procs = fs.readFileSync(path.join(dir, 'cgroup.procs'), 'utf8').split('\n').filter(Boolean);
        for (const pid of procs) fs.writeFileSync(path.join(root, 'cgroup.procs'), pid);
        fs.rmdirSync(dir);
      } catch {
        // Exited processes leave nothing to move; a group still busy is left for the next run's name.
      }
    },
  };
}
