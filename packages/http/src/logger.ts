import winston from 'winston';

export type Logger = winston.Logger;

/** Structured JSON logs, one object per line, tagged with the deployable's name. */
export function createLogger(service: string, level = 'info'): Logger {
  return winston.createLogger({
    level,
    defaultMeta: { service },
    format: winston.format.combine(winston.format.timestamp(), winston.format.errors({ stack: true }), winston.format.json()),
    transports: [new winston.transports.Console()],
  });
}
