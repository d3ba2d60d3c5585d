import { isDisposableAddress, refuseDisposableAddress } from './disposable-addresses';

test('throwaway-mail domains and their subdomains are disposable; ordinary ones are not', () => {
  expect(isDisposableAddress('someone@mailinator.com')).toBe(true);
  expect(isDisposableAddress('someone@MAILINATOR.COM')).toBe(true);
  expect(isDisposableAddress('someone@inbox.mailinator.com')).toBe(true);
  expect(isDisposableAddress('someone@example.com')).toBe(false);
  expect(isDisposableAddress('someone@gmail.com')).toBe(false);
  expect(() => refuseDisposableAddress('a@mailinator.com')).toThrow(expect.objectContaining({ status: 400, code: 'disposable_email' }));
  expect(() => refuseDisposableAddress('a@example.com')).not.toThrow();
});
