/**
 * Privacy commands of the store CLI (docs/operations.md, Privacy):
 *   npm run store -- erase --store <id> --email <e> | --customer-id <id> | --client-id <id>
 *   npm run store -- export --store <id> --email <e> | --customer-id <id> | --client-id <id>
 *   npm run store -- delete --store <id>
 *   npm run store -- retention --store <id> --days <n | default>
 *   npm run store -- privacy requests --store <id>   |   privacy request --id <id>   |   privacy audit --store <id>
 * Each prints one JSON document on stdout. The erasure and the deletion run here, with the pipeline's own
 * modules, beside a running pipeline.
 */
import os from 'node:os';
import { type Command, InvalidArgumentError } from 'commander';
import { connect } from '@nats-io/transport-node';
import { jetstreamManager } from '@nats-io/jetstream';
import { privacySubjectOf, type PrivacySubject, type PrivacySubjectRequest } from '../contracts/src/privacy';
import { createDb, type Db } from '../storage/db';
import { getStore } from '../storage/store-registry';
import { getPrivacyRequest, listPrivacyAudit, listPrivacyRequests, recordPrivacyAudit } from '../storage/privacy';
import { erasePerson } from '../pipeline/src/operations/erase-person';
import { deleteStore } from '../pipeline/src/operations/delete-store';
import { exportPerson } from '../query-api/src/services/privacy/person-export';
import { requireConnection } from './connection-env';

const print = (value: unknown): void => console.log(JSON.stringify(value, null, 2));

/** Who ran the command, as the audit names it. */
const cliCredential = (): string => `cli:${os.userInfo().username}`;

interface SubjectOptions {
  store: string;
  email?: string;
  customerId?: string;
  clientId?: string;
}

function subjectOf(opts: SubjectOptions): PrivacySubject {
  const body: PrivacySubjectRequest = { email: opts.email, customer_id: opts.customerId, client_id: opts.clientId };
  for (const k of Object.keys(body) as Array<keyof PrivacySubjectRequest>) if (body[k] === undefined) delete body[k];
  const parsed = privacySubjectOf(body);
  if (!parsed.ok) {
    // The request's fields as this command's options.
    const option = (field: string) => `--${field.replace('_', '-')}`;
    const fields = parsed.field.split(', ').map(option).join(', ');
    const message = parsed.message.replace('email, customer_id, client_id', '--email, --customer-id, --client-id');
    console.error(`store: ${fields}: ${message}`);
    process.exit(2);
  }
  return parsed.subject;
}

async function withStoreDb<T>(storeId: string, fn: (db: Db) => Promise<T>): Promise<T> {
  const db = createDb({ connectionString: requireConnection('DATABASE_URL', 'store'), service: 'store-cli', max: 2 });
  try {
    if (!(await getStore(db, storeId))) {
      console.error(`store: no store with id ${storeId}`);
      process.exit(3);
    }
    return await fn(db);
  } finally {
    await db.close();
  }
}

/** The streams, for deleting messages: every erasure and deletion needs them. */
async function withStreams<T>(
  fn: (s: { nc: Awaited<ReturnType<typeof connect>>; jsm: Awaited<ReturnType<typeof jetstreamManager>> }) => Promise<T>,
): Promise<T> {
  const nc = await connect({ servers: requireConnection('NATS_URL', 'store').split(','), name: 'store-privacy' });
  try {
    return await fn({ nc, jsm: await jetstreamManager(nc) });
  } finally {
    await nc.drain();
  }
}

/** A store's retention of raw payloads: days (0 keeps them), the deployment's default (null), or none at all. */
function retentionDays(value: string): number | null | 'none' {
  if (value === 'default') return null;
  if (value === 'none') return 'none';
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0)
    throw new InvalidArgumentError('must be a whole number of days (0 keeps them), "none" or "default"');
  return n;
}

function personOptions(cmd: Command): Command {
  return cmd
    .requiredOption('--store <id>', 'store id')
    .option('--email <email>', "the person's email")
    .option('--customer-id <id>', "the store's customer id")
    .option('--client-id <id>', 'a browser client id of the person');
}

export function registerPrivacyCommands(program: Command): void {
  personOptions(program.command('erase'))
    .description(
      'Erase a person and everything linked to it (rows, views retracted exactly, stream messages); prints the counts',
    )
    .action(async (opts: SubjectOptions) => {
      const subject = subjectOf(opts);
      await withStoreDb(opts.store, (db) =>
        withStreams(async ({ nc, jsm }) =>
          print(
            await erasePerson(
              { db, nc, jsm },
              { storeId: opts.store, subject, source: 'cli', credential: cliCredential() },
            ),
          ),
        ),
      );
    });

  personOptions(program.command('export'))
    .description('Print everything stored about a person as one JSON document')
    .action(async (opts: SubjectOptions) => {
      const subject = subjectOf(opts);
      await withStoreDb(opts.store, async (db) => {
        const requestedAt = new Date();
        const doc = await db.transaction('privacy.export', (tx) => exportPerson(tx, opts.store, subject, Date.now()), {
          isolation: 'repeatable read',
        });
        await recordPrivacyAudit(db.query, {
          storeId: opts.store,
          action: 'export',
          source: 'cli',
          credential: cliCredential(),
          requestedAt,
          counts: { clients: doc.identifiers.client_ids.length, events: doc.events.length, orders: doc.orders.length },
        });
        print(doc);
      });
    });

  program
    .command('delete')
    .description('Delete a store: credentials revoked, every row and stream message of it deleted; prints the counts')
    .requiredOption('--store <id>', 'store id')
    .action(async (opts: { store: string }) => {
      await withStoreDb(opts.store, (db) =>
        withStreams(async ({ jsm }) =>
          print(await deleteStore({ db, jsm }, { storeId: opts.store, source: 'cli', credential: cliCredential() })),
        ),
      );
    });

  program
    .command('retention')
    .description(
      "Keep the store's raw payloads this many days (0 keeps them; `none`: store none from now on and delete those kept; " +
        '`default`: RETENTION_RAW_EVENTS_DAYS). Facts, views and journeys stay as they are.',
    )
    .requiredOption('--store <id>', 'store id')
    .requiredOption('--days <n>', 'days, 0, none, or default', retentionDays)
    .action(async (opts: { store: string; days: number | null | 'none' }) => {
      await withStoreDb(opts.store, async (db) => {
        if (opts.days === 'none') {
          // First no worker stores more: the update waits for the writes in flight, which lock the store's row in
          // share mode, and every later write sees it. Then those kept go, in small transactions, so that a large
          // store's delete holds no lock the pipeline waits for.
          await db.query('stores.retention', 'update stores set raw_payloads_stored = false where store_id = $1', [
            opts.store,
          ]);
          let deleted = 0;
          for (;;) {
            const rows = await db.query(
              'stores.retention_delete',
              `delete from raw_events where ctid in
                 (select ctid from raw_events where store_id = $1 limit 5000) returning 1`,
              [opts.store],
            );
            if (rows.length === 0) break;
            deleted += rows.length;
          }
          print({ store_id: opts.store, raw_payloads_stored: false, raw_events_deleted: deleted });
          return;
        }
        await db.query(
          'stores.retention',
          'update stores set raw_retention_days = $2, raw_payloads_stored = true where store_id = $1',
          [opts.store, opts.days],
        );
        print({ store_id: opts.store, raw_retention_days: opts.days, raw_payloads_stored: true });
      });
    });

  const privacy = program.command('privacy').description('Privacy requests (Shopify webhooks, the API) and the audit');
  privacy
    .command('requests')
    .description("List a store's privacy requests (without their documents)")
    .requiredOption('--store <id>', 'store id')
    .action(async (opts: { store: string }) => {
      await withStoreDb(opts.store, async (db) => print(await listPrivacyRequests(db, opts.store)));
    });
  privacy
    .command('request')
    .description("Print one request with its result: an export's document, an erasure's counts")
    .requiredOption('--id <id>', 'request id (pr_...)')
    .action(async (opts: { id: string }) => {
      const db = createDb({
        connectionString: requireConnection('DATABASE_URL', 'store'),
        service: 'store-cli',
        max: 1,
      });
      try {
        const row = await getPrivacyRequest(db, opts.id);
        if (!row) {
          console.error(`store: no privacy request with id ${opts.id}`);
          process.exit(3);
        }
        print(row);
      } finally {
        await db.close();
      }
    });
  privacy
    .command('audit')
    .description("The store's erasures, exports and deletions: when, through what, by which credential, counts")
    .requiredOption('--store <id>', 'store id')
    .action(async (opts: { store: string }) => {
      const db = createDb({
        connectionString: requireConnection('DATABASE_URL', 'store'),
        service: 'store-cli',
        max: 1,
      });
      try {
        print(await listPrivacyAudit(db, opts.store));
      } finally {
        await db.close();
      }
    });
}
