import winston from 'winston';

export type Logger = winston.Logger;

/** JSON lines for SREs: every entry carries its context (request_id, workflow_id, principal), never secrets. */
export function createLogger(options: { level: string; silent?: boolean }): Logger {
  return winston.createLogger({
    level: options.level,
    silent: options.silent ?? false,
    format: winston.format.combine(winston.format.timestamp(), winston.format.errors({ stack: true }), winston.format.json()),
    defaultMeta: { service: 'handoff' },
    transports: [new winston.transports.Console({ stderrLevels: ['error', 'warn'] })],
  });
}
