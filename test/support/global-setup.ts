/**
 * Integration globalSetup: real nats-server and PostgreSQL on free ports in a temp dir, migrated, with the
 * stream and consumers applied. URLs reach the test workers through the environment.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { connect } from '@nats-io/transport-node';
import { migrate } from '../../infra/migrate';
import { setupNats } from '../../infra/nats-setup';
import { buildTracker } from '../../scripts/build-tracker';
import { buildDashboard } from '../../scripts/build-dashboard';
import { startLocalServices } from './local-services';
import { TEST_PARTITIONS } from './env';

export default async function globalSetup(): Promise<void> {
  // The API serves the tracker and the dashboard from their builds (make test builds them too; a direct
  // `npx jest` may not have).
  await buildTracker();
  await buildDashboard();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'attrib-test-'));
  fs.chmodSync(dataDir, 0o755);
  const services = await startLocalServices(dataDir);
  await migrate(services.databaseUrl);
  const nc = await connect({ servers: services.natsUrl });
  await setupNats(nc, { partitions: TEST_PARTITIONS, ackWaitMs: 4000 });
  await nc.close();
  process.env.TEST_DATA_DIR = dataDir;
  process.env.TEST_NATS_URL = services.natsUrl;
  process.env.TEST_DATABASE_URL = services.databaseUrl;
  process.env.TEST_NATS_PORT = String(services.natsPort);
  process.env.TEST_PG_PORT = String(services.pgPort);
}
