import { fromS3Rule, lifecycleXml, toS3Rule } from './lifecycle';

test('a rule round-trips through its S3 form and is expressible', () => {
  const s3 = toS3Rule({ id: 'logs', prefix: 'logs/', expire_days: 7, abort_incomplete_multipart_days: 2 }, 0);
  expect(s3).toEqual({ ID: 'logs', Status: 'Enabled', Filter: { Prefix: 'logs/' }, Expiration: { Days: 7 }, AbortIncompleteMultipartUpload: { DaysAfterInitiation: 2 } });
  expect(fromS3Rule(s3)).toEqual({ id: 'logs', prefix: 'logs/', enabled: true, expire_days: 7, expire_date: null, abort_incomplete_multipart_days: 2, expressible: true });
});

test('a date expiry is midnight UTC and reads back as a date', () => {
  const s3 = toS3Rule({ expire_date: '2027-01-31', enabled: false }, 2);
  expect(s3.ID).toBe('rule-3');
  expect(s3.Status).toBe('Disabled');
  expect((s3.Expiration!.Date as Date).toISOString()).toBe('2027-01-31T00:00:00.000Z');
  expect(fromS3Rule(s3)).toMatchObject({ expire_date: '2027-01-31', enabled: false, expressible: true });
});

test('rules made elsewhere are reported with what the model cannot express', () => {
  const view = fromS3Rule({
    ID: 'odd', Status: 'Enabled',
    Filter: { And: { Prefix: 'a/', Tags: [{ Key: 'k', Value: 'v' }], ObjectSizeGreaterThan: 10 } },
    Transitions: [{ Days: 3, StorageClass: 'GLACIER' }],
  });
  expect(view).toMatchObject({ id: 'odd', prefix: 'a/', expressible: false, tags: { k: 'v' }, size_greater_than: 10, other: ['transitions'] });
});

test('the configuration document is S3\'s, escaped, one element per rule field', () => {
  const xml = lifecycleXml([
    { id: 'a&b', prefix: 'x<y/', expire_days: 3 },
    { prefix: 'tmp/', expire_date: '2027-01-31', abort_incomplete_multipart_days: 1, enabled: false },
  ]);
  expect(xml).toBe('<?xml version="1.0" encoding="UTF-8"?><LifecycleConfiguration xmlns="http://s3.amazonaws.com/doc/2006-03-01/">'
    + '<Rule><ID>a&amp;b</ID><Filter><Prefix>x&lt;y/</Prefix></Filter><Status>Enabled</Status><Expiration><Days>3</Days></Expiration></Rule>'
    + '<Rule><ID>rule-2</ID><Filter><Prefix>tmp/</Prefix></Filter><Status>Disabled</Status><Expiration><Date>2027-01-31T00:00:00.000Z</Date></Expiration>'
    + '<AbortIncompleteMultipartUpload><DaysAfterInitiation>1</DaysAfterInitiation></AbortIncompleteMultipartUpload></Rule>'
    + '</LifecycleConfiguration>');
});
