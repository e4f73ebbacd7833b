import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { isTransientDbError, statementNames } from './db';

/** The error a real connection attempt to `target` fails with. */
function connectError(target: net.NetConnectOpts): Promise<Error> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(target);
    socket.once('connect', () => {
      socket.destroy();
      reject(new Error('connected'));
    });
    socket.once('error', resolve);
  });
}

describe('isTransientDbError', () => {
  it('takes a database that cannot be reached, over TCP or its Unix socket, for a passing trouble', async () => {
    const missingSocket = path.join(os.tmpdir(), `no-server-${process.pid}`, '.s.PGSQL.5432');
    expect(isTransientDbError(await connectError({ path: missingSocket }))).toBe(true);
    const closed = net.createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const { port } = closed.address() as net.AddressInfo;
    await new Promise((r) => closed.close(r));
    expect(isTransientDbError(await connectError({ host: '127.0.0.1', port }))).toBe(true);
  });

  it('takes serialization failures and server shutdowns for passing, other errors not', () => {
    expect(isTransientDbError({ code: '40001', message: 'could not serialize access' })).toBe(true);
    expect(isTransientDbError({ code: '57P01', message: 'terminating connection' })).toBe(true);
    expect(isTransientDbError({ code: '23505', message: 'duplicate key' })).toBe(false);
    // A missing file that is not a connection (a migration file, say) is not the database being away.
    expect(isTransientDbError(Object.assign(new Error('no such file'), { code: 'ENOENT', syscall: 'open' }))).toBe(
      false,
    );
    expect(isTransientDbError(null)).toBe(false);
  });
});

describe('statementNames', () => {
  it('names a text the same each time, and leaves texts past the limit unnamed', () => {
    const nameOf = statementNames(2);
    const a = nameOf('select 1');
    expect(a).toBeDefined();
    expect(nameOf('select 2')).not.toBe(a);
    expect(nameOf('select 1')).toBe(a);
    // A text made with values in it would otherwise prepare a statement per value on every connection.
    expect(nameOf('select 3')).toBeUndefined();
    expect(nameOf('select 2')).toBeDefined();
  });
});
