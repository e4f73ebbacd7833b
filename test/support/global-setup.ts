/**
 * Integration globalSetup: for each jest worker, a real nats-server and PostgreSQL on free ports in a temp
 * dir, migrated, with the stream and consumers applied. Their URLs reach the test workers through the
 * environment (see env.ts).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { connect } from '@nats-io/transport-node';
import { migrate } from '../../infra/migrate';
import { setupNats } from '../../infra/nats-setup';
import { buildTracker } from '../../scripts/build-tracker';
import { buildDashboard } from '../../scripts/build-dashboard';
import { buildDaemons } from '../../scripts/build-daemons';
import { type LocalServices, startLocalServices } from './local-services';
import { SERVICES_VAR, TEST_ACK_WAIT_MS, TEST_PARTITIONS } from './env';

async function startWorkerServices(root: string, worker: number): Promise<LocalServices> {
  const dataDir = path.join(root, `worker-${worker}`);
  fs.mkdirSync(dataDir, { mode: 0o755 });
  const services = await startLocalServices(dataDir);
  await migrate(services.databaseUrl);
  const nc = await connect({ servers: services.natsUrl });
  await setupNats(nc, { partitions: TEST_PARTITIONS, ackWaitMs: TEST_ACK_WAIT_MS });
  await nc.close();
  return services;
}

export default async function globalSetup(globalConfig: { maxWorkers: number }): Promise<void> {
  // The API serves the tracker and the dashboard from their builds (make test builds them too; a direct
  // `npx jest` may not have).
  await buildTracker();
  await buildDashboard();
  // make run's script, which some tests start, runs the daemons from their build.
  await buildDaemons();
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'attrib-test-'));
  fs.chmodSync(root, 0o755);
  // Set before the services start, so that the teardown removes whatever did start if one fails.
  process.env.TEST_ROOT_DIR = root;
  // One worker's services after the other: each takes its ports from the kernel just before binding them, so two
  // starting together could be handed the same free port.
  const all: LocalServices[] = [];
  for (let worker = 1; worker <= Math.max(1, globalConfig.maxWorkers); worker++) {
    all.push(await startWorkerServices(root, worker));
  }
  process.env[SERVICES_VAR] = JSON.stringify(all);
}
