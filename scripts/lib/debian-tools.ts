import { existsSync } from 'node:fs';
import { spawnSync } from 'node:child_process';

// Third-party clients the end-to-end tests drive (Debian's aws CLI, boto3, Chromium) and test helpers,
// installed from Debian's packages when missing, as on a fresh CI machine.

interface Tool {
  pkg: string;
  present: () => boolean;
}

const TOOLS: Tool[] = [
  { pkg: 'awscli', present: () => existsSync('/usr/bin/aws') },
  { pkg: 'python3-boto3', present: () => spawnSync('/usr/bin/python3', ['-c', 'import boto3'], { stdio: 'ignore' }).status === 0 },
  // Runs a test radosgw with its clock ahead, to check credential expiry without waiting.
  // The browser the page tests drive through playwright-core (downloading Playwright's own browsers fails here).
  { pkg: 'chromium', present: () => existsSync('/usr/bin/chromium') },
  { pkg: 'faketime', present: () => existsSync('/usr/lib/x86_64-linux-gnu/faketime/libfaketimeMT.so.1') },
];

export function ensureDebianTools(say: (line: string) => void): void {
  const missing = TOOLS.filter((t) => !t.present()).map((t) => t.pkg);
  if (missing.length === 0) return;
  say(`installing Debian packages: ${missing.join(' ')}`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const update = spawnSync('apt-get', ['update', '-qq'], { stdio: 'inherit', env });
  if (update.status !== 0) throw new Error('apt-get update failed');
  const install = spawnSync('apt-get', ['install', '-y', '-qq', '--no-install-recommends', ...missing], { stdio: 'inherit', env });
  if (install.status !== 0) throw new Error(`apt-get install ${missing.join(' ')} failed`);
}
