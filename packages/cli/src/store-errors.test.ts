import { storeRefusal } from './store-errors';

const xml = '<?xml version="1.0"?><Error><Code>AccessDenied</Code><Message>Access Denied</Message></Error>';

test('a refusal carries the store\'s code and message, and the hint for its status', async () => {
  const hints = { 403: 'run it again' };
  expect(await storeRefusal(new Response(xml, { status: 403 }), 'reading b/k', hints)).toMatchObject({ message: 'the object store refused reading b/k: HTTP 403 AccessDenied: Access Denied', hint: 'run it again' });
  expect((await storeRefusal(new Response(xml, { status: 404 }), 'reading b/k', hints)).hint).toBeUndefined();
});

test('a body that is not S3\'s XML leaves only the status', async () => {
  expect((await storeRefusal(new Response('bad gateway', { status: 502 }), 'the download of k')).message).toBe('the object store refused the download of k: HTTP 502');
});
