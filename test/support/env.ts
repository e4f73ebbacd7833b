/** Test environment, exported by globalSetup. */
export const TEST_PARTITIONS = 4;

function required(name: string): string {
  const v = process.env[name];
  if (!v) throw new Error(`${name} is not set: run integration tests through jest's integration project`);
  return v;
}

export const testEnv = {
  get natsUrl(): string {
    return required('TEST_NATS_URL');
  },
  get databaseUrl(): string {
    const url = required('TEST_DATABASE_URL');
    // Destructive helpers run only against a database whose name says it is for tests.
    if (new URL(url).pathname !== '/attribution_test') throw new Error(`refusing to use non-test database ${url}`);
    return url;
  },
  get dataDir(): string {
    return required('TEST_DATA_DIR');
  },
};
