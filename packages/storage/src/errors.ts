// Store failures as the routes need them: whether a retry can help, and a
// message that names the operation but never the store's internals.

export type StorageErrorKind =
  /** The store did not answer or answered 5xx: safe to retry (502/503 `storage_error`). */
  | 'unavailable'
  /** The store refused the credentials or the action. */
  | 'denied'
  | 'not_found'
  | 'conflict'
  | 'invalid';

export class StorageError extends Error {
  constructor(
    readonly kind: StorageErrorKind,
    readonly operation: string,
    message: string,
    readonly status?: number,
    readonly storeCode?: string,
  ) {
    super(`${operation}: ${message}`);
    this.name = 'StorageError';
  }

  get retryable(): boolean {
    return this.kind === 'unavailable';
  }
}

/** Classifies anything the AWS SDK or fetch threw during `operation`. */
export function toStorageError(operation: string, err: unknown): StorageError {
  if (err instanceof StorageError) return err;
  const e = err as { name?: string; code?: string; Code?: string; message?: string; $metadata?: { httpStatusCode?: number } } | null;
  const status = e?.$metadata?.httpStatusCode;
  const code = e?.Code ?? e?.name ?? e?.code;
  const message = e?.message ?? String(err);
  if (status === undefined || status >= 500 || NETWORK_CODES.has(String(e?.code ?? ''))) {
    return new StorageError('unavailable', operation, 'the object store is not answering', status, code);
  }
  if (status === 403 || status === 401) return new StorageError('denied', operation, 'access denied', status, code);
  if (status === 404) return new StorageError('not_found', operation, 'not found', status, code);
  if (status === 409) return new StorageError('conflict', operation, message, status, code);
  return new StorageError('invalid', operation, message, status, code);
}

const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENOTFOUND', 'UND_ERR_SOCKET', 'UND_ERR_CONNECT_TIMEOUT']);
