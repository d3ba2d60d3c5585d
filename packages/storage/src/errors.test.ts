import { StorageError, toStorageError } from './errors';

const sdk = (status: number | undefined, name = 'X', message = 'internal detail: /var/lib/ceph/osd') =>
  Object.assign(new Error(message), { name, $metadata: { httpStatusCode: status } });

test.each([
  [sdk(undefined), 'unavailable', true],
  [Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:7480'), { code: 'ECONNREFUSED' }), 'unavailable', true],
  [sdk(503), 'unavailable', true],
  [sdk(500), 'unavailable', true],
  [sdk(403, 'AccessDenied'), 'denied', false],
  [sdk(404, 'NoSuchKey'), 'not_found', false],
  [sdk(409, 'BucketNotEmpty'), 'conflict', false],
  [sdk(400, 'InvalidArgument'), 'invalid', false],
])('%# is %s (retryable: %s)', (err, kind, retryable) => {
  const se = toStorageError('create bucket', err);
  expect(se).toBeInstanceOf(StorageError);
  expect(se.kind).toBe(kind);
  expect(se.retryable).toBe(retryable);
  expect(se.message.startsWith('create bucket: ')).toBe(true);
});

test('an outage or refusal never carries the store\'s own message', () => {
  for (const status of [undefined, 500, 403, 404]) {
    expect(toStorageError('measure bucket', sdk(status)).message).not.toContain('/var/lib/ceph');
  }
});

test('a StorageError passes through unchanged', () => {
  const e = new StorageError('denied', 'probe', 'access denied', 403);
  expect(toStorageError('other', e)).toBe(e);
});
