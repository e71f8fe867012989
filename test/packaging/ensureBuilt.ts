// Tests that need electron-vite's output (browser mode serves out/renderer, packaging packs out/**)
// or the CLI's bundle (out/cli) build it when it is missing, still the placeholder, or older than the
// sources; one build at a time across test workers (a directory lock), so no test reads out/ while
// another rewrites it.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { withDirLock } from '../support/dirLock';

export const OUT = join(process.cwd(), 'out');
const OUTPUTS = [join(OUT, 'main', 'index.js'), join(OUT, 'preload', 'index.cjs'), join(OUT, 'renderer', 'index.html')];

function newestMtime(path: string): number {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return readdirSync(path).reduce((newest, name) => Math.max(newest, newestMtime(join(path, name))), stat.mtimeMs);
}

function isBuilt(): boolean {
  if (!OUTPUTS.every((f) => existsSync(f))) return false;
  if (!readFileSync(OUTPUTS[0]!, 'utf8').includes('requestSingleInstanceLock')) return false;
  if (!readFileSync(OUTPUTS[1]!, 'utf8').includes('exposeInMainWorld')) return false;
  const built = Math.min(...OUTPUTS.map((f) => statSync(f).mtimeMs));
  return built >= Math.max(newestMtime(join(process.cwd(), 'src')), newestMtime(join(process.cwd(), 'electron.vite.config.ts')));
}

/** One build at a time into this checkout's out/, whichever bundle. */
const buildLock = (): string => join(tmpdir(), `audience-desk-build-${statSync(process.cwd()).ino}.lock`);

export async function ensureBuilt(): Promise<void> {
  await withDirLock(buildLock(), () => {
    if (!isBuilt())
      execFileSync(join(process.cwd(), 'node_modules', '.bin', 'electron-vite'), ['build'], { stdio: 'pipe', timeout: 300_000 });
  });
}

const CLI_ENTRY = join(OUT, 'cli', 'index.js');

/** The headless CLI's bundle (cli.vite.config.ts), built when missing or older than the sources. */
export async function ensureCliBuilt(): Promise<string> {
  await withDirLock(buildLock(), () => {
    const sources = Math.max(newestMtime(join(process.cwd(), 'src')), newestMtime(join(process.cwd(), 'cli.vite.config.ts')));
    if (!existsSync(CLI_ENTRY) || statSync(CLI_ENTRY).mtimeMs < sources)
      execFileSync(join(process.cwd(), 'node_modules', '.bin', 'vite'), ['build', '--config', 'cli.vite.config.ts'], {
        stdio: 'pipe',
        timeout: 300_000,
      });
  });
  return CLI_ENTRY;
}
