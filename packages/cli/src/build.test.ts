import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

// The workspace runs src/ through tsx, which forgives what Node does not; the
// published package runs dist/ under Node's own ESM rules. Type-checking with
// the build's settings (nodenext) catches an import Node could not resolve.
test('the published build type-checks under Node ESM resolution', () => {
  const tsc = fileURLToPath(new URL('../node_modules/typescript/bin/tsc', import.meta.url));
  const project = fileURLToPath(new URL('../tsconfig.build.json', import.meta.url));
  const r = spawnSync(process.execPath, [tsc, '-p', project, '--noEmit'], { encoding: 'utf8' });
  expect(r.stdout + r.stderr).toBe('');
  expect(r.status).toBe(0);
});
