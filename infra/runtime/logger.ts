/** JSON logs to stdout (STYLE 42): level labels, base fields service and version, errors under `err`. */
import pino, { type Logger } from 'pino';

export type { Logger };

export function createLogger(service: string, level: string): Logger {
  return pino({
    level,
    base: { service, version: process.env.npm_package_version ?? '0.1.0' },
    formatters: { level: (label) => ({ level: label }) },
    timestamp: pino.stdTimeFunctions.isoTime,
  });
}

/** A logger that writes nothing, for tests and scripts. */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}
