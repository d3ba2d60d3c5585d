// Opens the approval page in a browser, but only where that can work: a
// desktop session (macOS, Windows, or a Linux/BSD DISPLAY or WAYLAND_DISPLAY)
// and an opener on PATH. Over SSH, in a container or CI the link printed by
// `floe login` is the way; failing to open is never an error.
import { spawn } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';

export interface Opener {
  command: string;
  args: string[];
}

/** The opener for this platform and session, or null when a browser cannot be opened here. Pure. */
export function openerFor(platform: NodeJS.Platform, env: NodeJS.ProcessEnv, onPath: (cmd: string) => boolean): Opener | null {
  if (env.FLOE_NO_BROWSER || env.CI) return null;
  if (platform === 'darwin') return onPath('open') ? { command: 'open', args: [] } : null;
  // rundll32 hands the URL to the default browser without a shell reading `&` in it.
  if (platform === 'win32') return { command: 'rundll32', args: ['url.dll,FileProtocolHandler'] };
  const desktop = Boolean(env.DISPLAY || env.WAYLAND_DISPLAY);
  if (!desktop) return null;
  for (const command of ['xdg-open', 'gio', 'sensible-browser']) {
    if (onPath(command)) return { command, args: command === 'gio' ? ['open'] : [] };
  }
  return null;
}

export function onPath(cmd: string, env: NodeJS.ProcessEnv = process.env): boolean {
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (!dir) continue;
    try {
      accessSync(join(dir, cmd), constants.X_OK);
      return true;
    } catch {
      // not here
    }
  }
  return false;
}

/** Starts the opener detached; true when it was started. Errors are swallowed: the printed link still works. */
export function openBrowser(url: string, opener: Opener | null = openerFor(process.platform, process.env, (c) => onPath(c))): boolean {
  if (!opener) return false;
  try {
    const child = spawn(opener.command, [...opener.args, url], { detached: true, stdio: 'ignore' });
    child.on('error', () => {});
    child.unref();
    return true;
  } catch {
    return false;
  }
}
