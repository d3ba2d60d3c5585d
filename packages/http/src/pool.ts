import pg from 'pg';
import type { Logger } from './logger';

/**
 * The pg pool every deployable uses. A connection can die under any client
 * (a restarted or failed-over database, a terminated backend, a network
 * cut); pg then emits 'error' on the client, and on a client checked out
 * for a transaction nobody listens, so the whole process would crash. Every
 * client gets a listener from birth: the failing query rejects as usual,
 * the caller releases the client with the error, and the process lives on.
 */
export function createPool(o: { connectionString: string; max: number; name: string; logger: Logger }): pg.Pool {
  // Named, so an operator (or a fault test) can tell each deployable's sessions apart in pg_stat_activity.
  const pool = new pg.Pool({ connectionString: o.connectionString, max: o.max, application_name: `floe-${o.name}` });
  pool.on('error', (err) => o.logger.error('postgres connection lost (idle)', { err }));
  pool.on('connect', (client) => client.on('error', (err) => o.logger.warn('postgres connection lost (in use)', { err })));
  return pool;
}
