/**
 * Test environment, exported by globalSetup: one set of throwaway services per jest worker, so that test
 * files running side by side never share a stream, a database or a server that one of them stops.
 */
import type { LocalServices } from './local-services';

export const TEST_PARTITIONS = 4;
/** The pipeline consumers' ack wait on the shared test broker: a killed daemon's messages come back in seconds. */
export const TEST_ACK_WAIT_MS = 4000;

/** The environment variable through which globalSetup hands every worker's services (a JSON array) to the workers. */
export const SERVICES_VAR = 'TEST_SERVICES';

let mine: LocalServices | undefined;

function services(): LocalServices {
  if (mine) return mine;
  const all = process.env[SERVICES_VAR];
  if (!all) throw new Error(`${SERVICES_VAR} is not set: run integration tests through jest's integration project`);
  // Jest numbers its workers from 1; a run in band is worker 1.
  const worker = Number(process.env.JEST_WORKER_ID ?? '1');
  mine = (JSON.parse(all) as LocalServices[])[worker - 1];
  if (!mine) throw new Error(`no test services for jest worker ${worker}`);
  return mine;
}

export const testEnv = {
  get natsUrl(): string {
    return services().natsUrl;
  },
  get databaseUrl(): string {
    const url = services().databaseUrl;
    // Destructive helpers run only against a database whose name says it is for tests.
    if (new URL(url).pathname !== '/attribution_test') throw new Error(`refusing to use non-test database ${url}`);
    return url;
  },
  get dataDir(): string {
    return services().dataDir;
  },
  get pgPort(): number {
    return services().pgPort;
  },
};
