import { SINK_ROOT } from '@floe/ingest';
import { UPLOADER_NAME, defaultPrefix, prefixProblem } from './uploader-rules';

describe('uploader names', () => {
  test.each(['cam', 'cam-1', 'Cam_1.jpg', '7', 'x'.repeat(64)])('%s is a name', (n) => expect(UPLOADER_NAME.test(n)).toBe(true));
  test.each(['', '-cam', '.cam', 'a b', 'cam/1', 'x'.repeat(65), 'câmera'])('%j is not', (n) => expect(UPLOADER_NAME.test(n)).toBe(false));
});

describe('uploader prefixes', () => {
  test.each(['cams/1/', 'a', "it's(ok)!/", defaultPrefix('cam'), '_sinks-of-mine/', 'x'.repeat(256)])('%s is fine', (p) => expect(prefixProblem(p)).toBeNull());
  test.each([
    ['', /1-256/], ['x'.repeat(257), /1-256/], ['/abs/', /begin with/], ['a/../b/', /segment/], ['./a/', /segment/], ['a//b/', /empty/],
    ['cams/*', /wildcards/], ['cams/?', /wildcards/], ['cams/${aws:username}/', /wildcards/], ['a b/', /wildcards/],
    [SINK_ROOT, /Floe's own/], [`${SINK_ROOT}abc/`, /Floe's own/], ['_', /Floe's own/], ['_sink', /Floe's own/],
  ])('%j is refused', (p, why) => expect(prefixProblem(p)).toMatch(why));
});
