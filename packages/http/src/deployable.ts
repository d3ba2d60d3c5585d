import type { Express } from 'express';
import { Redis } from 'ioredis';
import type pg from 'pg';
import { loadConfig, type FloeConfig } from '@floe/config';
import { createLogger, type Logger } from './logger';
import { createPool } from './pool';
import { serve } from './serve';

// The one wiring of every deployable with dependencies (the control plane,
// the catalog, identity, the ingest gateway and the workers): the config,
// loaded once from the environment; a logger under the deployable's name; its
// one pg pool (named `floe-<name>`, shared by the Prisma adapter and any raw
// SQL); a Redis client where it has one; and the graceful shutdown. On SIGINT
// or SIGTERM the server stops accepting and lets requests in flight finish,
// the deployable stops its own loops and consumers, then what is particular
// to it closes together with the Redis client, and the pool closes last
// (everything before it may still use it). A deployable's deps.ts names only
// what is particular to it.

/** What every deployable has. */
export interface ProcessDeps {
  config: FloeConfig;
  logger: Logger;
  /** The process's one pg pool. */
  db: pg.Pool;
}

/** A deployable with a Redis client of its own (BullMQ consumers and producers open their own connections). */
export interface RedisDeps extends ProcessDeps {
  redis: Redis;
}

type BaseOf<D> = D extends { redis: Redis } ? RedisDeps : ProcessDeps;

export interface RedisOptions {
  /** Folds a request's several reads (credential epochs, rate limits) into one round trip. */
  autoPipelining: boolean;
}

export type DeployableSpec<D extends ProcessDeps> = {
  /** The process's name: its logger's service, its pool's application_name (`floe-<name>`), its log lines. */
  name: string;
  /** The pool's size. */
  poolMax: number;
  /** What is particular to the deployable, built over the shared base. */
  particular: (base: BaseOf<D>) => Omit<D, keyof BaseOf<D>>;
  /** Closes what is particular (queues, clients, threads), together with the Redis client and before the pool. */
  close?: (d: D) => Array<Promise<unknown>>;
} & (D extends { redis: Redis } ? { redis: RedisOptions } : { redis?: undefined });

export interface ServeDeployable {
  port: number;
  /** Extra fields for the "listening" log line. */
  details?: Record<string, unknown>;
  /** Stops the process's own loops and consumers, after the server stopped accepting and before the deps close. */
  stop?: () => unknown;
}

export interface Deployable<D extends ProcessDeps> {
  readonly name: string;
  createDeps(config: FloeConfig, logger: Logger): D;
  closeDeps(d: D): Promise<void>;
  /** For main.ts: the config from the environment, the logger and the deps. */
  start(): { config: FloeConfig; logger: Logger; deps: D };
  /** Runs the deployable's app (packages/http's serve); on shutdown runs `stop`, then closes the deps. */
  serve(deps: D, app: Express, o: ServeDeployable): void;
}

export function deployable<D extends ProcessDeps>(spec: DeployableSpec<D>): Deployable<D> {
  const redisOptions = (spec as { redis?: RedisOptions }).redis;

  const createDeps = (config: FloeConfig, logger: Logger): D => {
    const db = createPool({ connectionString: config.databaseUrl, max: spec.poolMax, name: spec.name, logger });
    const base: ProcessDeps & Partial<RedisDeps> = { config, logger, db };
    if (redisOptions) base.redis = connectRedis(config.redisUrl, redisOptions, logger);
    return { ...base, ...spec.particular(base as BaseOf<D>) } as unknown as D;
  };

  const closeDeps = async (d: D): Promise<void> => {
    const redis = (d as Partial<RedisDeps>).redis;
    await Promise.allSettled([...(spec.close?.(d) ?? []), ...(redis ? [redis.quit()] : [])]);
    await d.db.end().catch(() => undefined);
  };

  return {
    name: spec.name,
    createDeps,
    closeDeps,
    start() {
      const config = loadConfig();
      const logger = createLogger(spec.name, config.logLevel);
      return { config, logger, deps: createDeps(config, logger) };
    },
    serve(deps, app, o) {
      serve(app, {
        name: spec.name,
        port: o.port,
        host: deps.config.listenHost,
        logger: deps.logger,
        details: o.details,
        onClose: async () => {
          await o.stop?.();
          await closeDeps(deps);
        },
      });
    },
  };
}

function connectRedis(url: string, o: RedisOptions, logger: Logger): Redis {
  const redis = new Redis(url, { enableAutoPipelining: o.autoPipelining, maxRetriesPerRequest: 2 });
  redis.on('error', (err) => logger.error('redis error', { err: err.message }));
  return redis;
}
