// Errors of this module, typed so the catalog can map them to Iceberg REST errors.

/**
 * An update that cannot be applied to the table as it is (unknown schema id, downgrade,
 * ref to an unknown snapshot, ...). The catalog answers 400 BadRequestException.
 *
 * `retryable` marks the cases the Java reference raises as RetryableValidationException:
 * the request carries values made stale by a concurrent commit (a snapshot sequence
 * number or first-row-id behind the table). Java's REST handler answers those with
 * 409 CommitFailedException so the client refreshes and retries; do the same.
 */
export class InvalidUpdateError extends Error {
  readonly retryable: boolean;

  constructor(message: string, options: { retryable?: boolean } = {}) {
    super(message);
    this.name = 'InvalidUpdateError';
    this.retryable = options.retryable ?? false;
  }
}

export function invalid(message: string, options?: { retryable?: boolean }): never {
  throw new InvalidUpdateError(message, options);
}
