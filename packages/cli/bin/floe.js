#!/usr/bin/env node
// The `floe` command. Installed from npm it runs the compiled dist/main.js;
// inside the Floe repository (where src/ exists beside dist/) it runs the
// TypeScript source through tsx, so the workspace never runs a stale build.
import { existsSync } from 'node:fs';

const src = new URL('../src/main.ts', import.meta.url);
if (existsSync(src)) {
  const { tsImport } = await import('tsx/esm/api');
  await tsImport(src.href, import.meta.url);
} else {
  await import(new URL('../dist/main.js', import.meta.url).href);
}
