import { HttpError } from '@floe/http';
import { StorageError } from '@floe/storage';

// A route's step that needs the object store: a store that does not answer is
// 502 `storage_error` with a retry hint (every such step is idempotent, so the
// retry is safe); anything else is not the store's and goes on up.

export async function storageStep<T>(step: () => Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (err) {
    if (err instanceof StorageError) {
      throw new HttpError(502, 'storage_error', 'the object store did not answer; retry shortly (it is safe)', { retry_after_seconds: 5 }, { 'Retry-After': '5' });
    }
    throw err;
  }
}
