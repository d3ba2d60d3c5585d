import { askedObject, INLINE_MAX_BYTES, objectForm, objectTarget, promisedForm } from './object-forms';

// What a fault looks like when it is an HttpError: its status, code and field; null when nothing was thrown.
const refusal = (f: () => unknown) => {
  try { f(); } catch (err) { const e = err as { status: number; code: string; extras: { field?: string } }; return [e.status, e.code, e.extras.field]; }
  return null;
};

const w = { tableBucket: 'acme--lake', blobBucket: 'acme--lake--blobs' };
const target = (key: unknown, bucket?: unknown) => objectTarget(w, askedObject(key, bucket));

test('a bare key is of the blob bucket unless bucket=tables; an s3:// URI names either of the catalog\'s buckets', () => {
  expect(target('reports/q1.pdf')).toEqual({ bucket: 'acme--lake--blobs', bucketKind: 'blobs', key: 'reports/q1.pdf' });
  expect(target('sales/orders/data/a.parquet', 'tables')).toEqual({ bucket: 'acme--lake', bucketKind: 'tables', key: 'sales/orders/data/a.parquet' });
  expect(target('s3://acme--lake/sales/m.json')).toEqual({ bucket: 'acme--lake', bucketKind: 'tables', key: 'sales/m.json' });
  expect(target('s3a://acme--lake--blobs/a b/ü.txt', 'blobs')).toEqual({ bucket: 'acme--lake--blobs', bucketKind: 'blobs', key: 'a b/ü.txt' });
});

test('refusals: no key is missing_field; an empty, malformed or foreign key invalid_key; an unknown or contradicting bucket invalid_value', () => {
  expect(refusal(() => target(undefined))).toEqual([400, 'missing_field', 'key']);
  for (const bad of ['', '/abs', 'a/../b', 'a\u0000b', 'a\u001fb', 'x'.repeat(1025), 's3://acme--lake', 's3://acme--lake/', 's3:///k', 's3://other-bucket/k', 's3://acme--lake//k']) {
    expect([bad.slice(0, 20), refusal(() => target(bad))]).toEqual([bad.slice(0, 20), [400, 'invalid_key', 'key']]);
  }
  expect(refusal(() => target('k', 'table'))).toEqual([400, 'invalid_value', 'bucket']);
  expect(refusal(() => target('s3://acme--lake/k', 'blobs'))).toEqual([400, 'invalid_value', 'bucket']);
  expect(refusal(() => target('x'.repeat(1024)))).toBeNull();
});

test('the promise of the key\'s extension, then of the stored content type', () => {
  expect(promisedForm('m/00001-ab.metadata.json', 'binary/octet-stream')).toBe('json');
  expect(promisedForm('rows.ndjson', 'application/json')).toBe('text');
  expect(promisedForm('notes.MD', null)).toBe('text');
  expect(promisedForm('noext', 'application/vnd.api+json; charset=utf-8')).toBe('json');
  expect(promisedForm('noext', 'text/csv')).toBe('text');
  expect(promisedForm('dir.json/file', 'application/octet-stream')).toBe('other');
  expect(promisedForm('a.parquet', 'application/octet-stream')).toBe('other');
});

test('the form: Parquet by its magic, JSON parsed losslessly or else text, text only when UTF-8, the rest a URL', () => {
  const parquet = Buffer.concat([Buffer.from('PAR1'), Buffer.alloc(8), Buffer.from('PAR1')]);
  expect(objectForm('other', parquet, true)).toEqual({ kind: 'parquet' });
  expect(objectForm('json', Buffer.from('PAR1'), false)).toEqual({ kind: 'parquet' });
  // PAR1 at the start but not the end of a whole object is not Parquet.
  expect(objectForm('other', Buffer.from('PAR1 and then some'), true)).toEqual({ kind: 'url' });
  expect(objectForm('text', Buffer.from('PAR1 and then some'), true)).toEqual({ kind: 'text', text: 'PAR1 and then some' });

  const big = objectForm('json', Buffer.from('{"snapshot-id": 6299339123456789012, "n": 1.5}'), true);
  expect(big).toEqual({ kind: 'json', json: { 'snapshot-id': 6299339123456789012n, n: 1.5 } });
  expect(objectForm('json', Buffer.from('{"a": '), true)).toEqual({ kind: 'text', text: '{"a": ' });
  expect(objectForm('json', Buffer.from('\ufeff[1]'), true)).toEqual({ kind: 'json', json: [1] });
  expect(objectForm('text', Buffer.from(''), true)).toEqual({ kind: 'text', text: '' });
  expect(objectForm('text', Buffer.from([0x68, 0xff, 0x69]), true)).toEqual({ kind: 'url' });
  expect(objectForm('json', Buffer.from([0xc3, 0x28]), true)).toEqual({ kind: 'url' });
  expect(objectForm('other', Buffer.from('plain words'), true)).toEqual({ kind: 'url' });
  // A bigger object's first bytes decide only whether it is Parquet.
  expect(objectForm('text', Buffer.from('id,n'), false)).toEqual({ kind: 'url' });
  expect(INLINE_MAX_BYTES).toBe(1_048_576);
});
