import { DeviceBodyError, readDeviceBody } from './device-body';

const read = (type: string | undefined, body: string) => readDeviceBody(type, Buffer.from(body));
const refusal = (type: string | undefined, body: string | Buffer) => {
  try {
    readDeviceBody(type, Buffer.isBuffer(body) ? body : Buffer.from(body));
  } catch (err) {
    if (err instanceof DeviceBodyError) return [err.status, err.code];
    throw err;
  }
  return null;
};

test('JSON: one object, or an array whose elements keep their text; non-objects are misfits', () => {
  expect(read('application/json', '{\n "id": 12345678901234567890,\n "t": 1.50\n}')).toEqual({
    format: 'json', elements: [{ kind: 'object', raw: '{"id":12345678901234567890,"t":1.50}' }],
  });
  expect(read('application/json; charset=utf-8', '[{"a":1}, 7]').elements).toEqual([
    { kind: 'object', raw: '{"a":1}' },
    { kind: 'misfit', raw: '7', got: 'number', reason: 'not an object' },
  ]);
});

test('NDJSON: a line each; a broken line is a misfit, not a refused body', () => {
  expect(read('application/x-ndjson', '{"a":1}\r\n\nnope\n"s"\n').elements).toEqual([
    { kind: 'object', raw: '{"a":1}' },
    { kind: 'misfit', raw: 'nope', got: 'invalid json', reason: 'not valid JSON' },
    { kind: 'misfit', raw: '"s"', got: 'string', reason: 'not an object' },
  ]);
});

test('CSV: the header names the fields; a record of the wrong width is a misfit', () => {
  const b = read('text/csv', '\ufeffid,temp,room\n1,21.5,"hall, upstairs"\n2,19\n');
  expect(b.format).toBe('csv');
  expect(b.elements).toEqual([
    { kind: 'object', raw: '{"id":"1","temp":"21.5","room":"hall, upstairs"}', fields: { id: '1', temp: '21.5', room: 'hall, upstairs' } },
    { kind: 'misfit', raw: '2,19', got: 'csv record', reason: '2 fields where the header has 3' },
  ]);
});

test('form: one object of strings, the last of a repeated field', () => {
  expect(read('application/x-www-form-urlencoded', 'id=3&temp=20.5&temp=21&note=a%20b')).toEqual({
    format: 'form', elements: [{ kind: 'object', raw: '{"id":"3","temp":"21","note":"a b"}', fields: { id: '3', temp: '21', note: 'a b' } }],
  });
});

test('text/plain, no type, or curl\'s default form type: JSON and NDJSON are recognised', () => {
  expect(read(undefined, '{"a":1}').format).toBe('json');
  expect(read('application/x-www-form-urlencoded', ' {"a":1}').format).toBe('json');
  expect(read('application/x-www-form-urlencoded', '{"a":1}\n{"a":2}').format).toBe('ndjson');
  expect(read('text/plain', '{"a":1}\n{"a":2}').format).toBe('ndjson');
  expect(read('text/plain', '[{"a":1}]').format).toBe('json');
});

test('refusals: unreadable bodies are 400, unknown types 415', () => {
  expect(refusal('application/json', '')).toEqual([400, 'unreadable_body']);
  expect(refusal('application/json', '{"a":')).toEqual([400, 'unreadable_body']);
  expect(refusal('application/json', '"just a string"')).toEqual([400, 'unreadable_body']);
  expect(refusal('application/json', Buffer.from([0x7b, 0xff, 0x7d]))).toEqual([400, 'unreadable_body']);
  expect(refusal('text/csv', 'a,"b\n1,2')).toEqual([400, 'unreadable_body']);
  expect(refusal('text/csv', 'a,a\n1,2')).toEqual([400, 'unreadable_body']);
  expect(refusal('text/csv', 'a,b\n')).toEqual([400, 'unreadable_body']);
  expect(refusal('application/x-www-form-urlencoded', '&&')).toEqual([400, 'unreadable_body']);
  expect(refusal('application/xml', '<a/>')).toEqual([415, 'unsupported_media_type']);
  expect(refusal('multipart/form-data; boundary=x', '--x--')).toEqual([415, 'unsupported_media_type']);
  expect(refusal('text/plain', 'temp=21')).toEqual([415, 'unsupported_media_type']);
});
