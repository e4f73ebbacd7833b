/** Creates or updates the JetStream stream and the pipeline consumers from infra/nats/*.json. */
import { Command } from 'commander';
import { connect } from '@nats-io/transport-node';
import { DEFAULT_PARTITIONS } from '../contracts/src/subjects';
import { setupNats } from '../infra/nats-setup';
import { requireConnection } from './connection-env';

const program = new Command('nats-setup')
  .description('Apply the stream and consumer definitions of infra/nats idempotently')
  .option('--nats-url <url>', 'NATS URL (default: $NATS_URL)')
  .option('--partitions <n>', 'partition count', process.env.EVENT_PARTITIONS ?? String(DEFAULT_PARTITIONS))
  .option('--replicas <n>', 'stream replicas', '1')
  .option(
    '--events-max-age-days <n>',
    'days the EVENTS stream keeps a message (0: until deleted); what a replay can restore',
    process.env.EVENTS_MAX_AGE_DAYS,
  )
  .action(async (opts: { natsUrl?: string; partitions: string; replicas: string; eventsMaxAgeDays?: string }) => {
    const eventsMaxAgeDays = opts.eventsMaxAgeDays === undefined ? undefined : Number(opts.eventsMaxAgeDays);
    if (eventsMaxAgeDays !== undefined && !(Number.isInteger(eventsMaxAgeDays) && eventsMaxAgeDays >= 0)) {
      console.error(
        'nats-setup: --events-max-age-days: must be a whole number of days (0 keeps messages until deleted)',
      );
      process.exit(2);
    }
    const servers = opts.natsUrl ?? requireConnection('NATS_URL', 'nats-setup');
    const nc = await connect({ servers: servers.split(','), name: 'nats-setup' });
    try {
      await setupNats(nc, { partitions: Number(opts.partitions), replicas: Number(opts.replicas), eventsMaxAgeDays });
      console.error(`nats-setup: stream and ${opts.partitions} consumers ready`);
    } finally {
      await nc.close();
    }
  });

program.parseAsync().catch((err: unknown) => {
  console.error('nats-setup: failed:', err instanceof Error ? err.message : err);
  process.exit(1);
});
