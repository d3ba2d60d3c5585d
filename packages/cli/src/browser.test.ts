import { openerFor } from './browser';

const all = () => true;
const none = () => false;

test('Linux opens only in a desktop session with an opener on PATH', () => {
  expect(openerFor('linux', { DISPLAY: ':0' }, all)).toEqual({ command: 'xdg-open', args: [] });
  expect(openerFor('linux', { WAYLAND_DISPLAY: 'wayland-0' }, (c) => c === 'gio')).toEqual({ command: 'gio', args: ['open'] });
  expect(openerFor('linux', { SSH_CONNECTION: '1 2 3 4' }, all)).toBeNull();
  expect(openerFor('linux', { DISPLAY: ':0' }, none)).toBeNull();
});

test('macOS and Windows open; CI and FLOE_NO_BROWSER never do', () => {
  expect(openerFor('darwin', {}, all)?.command).toBe('open');
  expect(openerFor('win32', {}, none)?.command).toBe('rundll32');
  expect(openerFor('darwin', { CI: 'true' }, all)).toBeNull();
  expect(openerFor('linux', { DISPLAY: ':0', FLOE_NO_BROWSER: '1' }, all)).toBeNull();
});
