/** JSON logs to stdout: level labels, base fields service and version, errors under `err`. */
import pino, { type DestinationStream, type Logger } from 'pino';

export type { Logger };

/** `destination` defaults to stdout; a process whose stdout carries a protocol (the MCP stdio server) passes stderr. */
export function createLogger(service: string, level: string, destination?: DestinationStream): Logger {
  const options = {
    level,
    base: { service, version: process.env.npm_package_version ?? '0.1.0' },
    formatters: { level: (label: string) => ({ level: label }) },
    timestamp: pino.stdTimeFunctions.isoTime,
  };
  return destination ? pino(options, destination) : pino(options);
}

/** A logger that writes nothing, for tests and scripts. */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}
