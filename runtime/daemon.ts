/**
 * The one start-up of every daemon (pipeline, query API, webhook worker): configuration read once or exit 1
 * with every problem listed, the logger, the start (which waits for its dependencies), signals and the
 * parent watch, and a fatal exit when the daemon's work ends on its own. Each app's main.ts is a call to this.
 */
import { exitOnSignals, loadConfigOrExit } from './lifecycle';
import { createLogger, type Logger } from './logger';

/** What every daemon's configuration carries. */
export interface DaemonConfig {
  logLevel: string;
  shutdownTimeoutMs: number;
  exitWithParent: boolean;
}

export interface RunningDaemon {
  /** Drains and closes; idempotent. */
  stop(): Promise<void>;
  /** Settles when the daemon's work ends: after stop(), or by itself (a failure). */
  done?: Promise<void>;
  isDraining?(): boolean;
}

export interface DaemonSpec<C extends DaemonConfig, R extends RunningDaemon> {
  /** The service name of logs and error messages. */
  name: string;
  loadConfig: () => C;
  start: (config: C, logger: Logger) => Promise<R>;
  /** Fields of the "started" log line. */
  describe?: (running: R, config: C) => Record<string, unknown>;
}

export function runDaemon<C extends DaemonConfig, R extends RunningDaemon>(spec: DaemonSpec<C, R>): void {
  const main = async (): Promise<void> => {
    const config = loadConfigOrExit(spec.name, spec.loadConfig);
    const logger = createLogger(spec.name, config.logLevel);
    const running = await spec.start(config, logger);
    logger.info(spec.describe?.(running, config) ?? {}, `${spec.name} started`);
    exitOnSignals(logger, () => running.stop(), config.shutdownTimeoutMs, { exitWithParent: config.exitWithParent });
    const fail = (err?: unknown): void => {
      logger.fatal({ err }, `${spec.name} stopped unexpectedly`);
      void running.stop().finally(() => process.exit(1));
    };
    running.done?.then(() => {
      if (!running.isDraining?.()) fail();
    }, fail);
  };
  main().catch((err: unknown) => {
    process.stderr.write(`${spec.name}: failed to start: ${err instanceof Error ? err.stack : String(err)}\n`);
    process.exit(1);
  });
}
