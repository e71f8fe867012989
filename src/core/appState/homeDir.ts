// Where app state lives by default: the OS's per-user app-data folder, the same one Electron's
// app.getPath('userData') gives for our productName, so the CLI and the desktop app share keys.
import { homedir } from 'node:os';
import { join } from 'node:path';

export const PRODUCT_NAME = 'Audience Desk';

export function defaultHomeDir(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): string {
  if (platform === 'win32') return join(env.APPDATA ?? join(homedir(), 'AppData', 'Roaming'), PRODUCT_NAME);
  if (platform === 'darwin') return join(homedir(), 'Library', 'Application Support', PRODUCT_NAME);
  return join(env.XDG_CONFIG_HOME || join(homedir(), '.config'), PRODUCT_NAME);
}
