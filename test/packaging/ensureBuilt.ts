// Tests that need electron-vite's output (browser mode serves out/renderer, packaging packs out/**)
// build it when it is missing, still the placeholder, or older than the sources; one build at a time
// across test workers (a directory lock), so no test reads out/ while another rewrites it.
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

export async function ensureBuilt(): Promise<void> {
  await withDirLock(join(tmpdir(), `audience-desk-build-${statSync(process.cwd()).ino}.lock`), () => {
    if (!isBuilt())
      execFileSync(join(process.cwd(), 'node_modules', '.bin', 'electron-vite'), ['build'], { stdio: 'pipe', timeout: 300_000 });
  });
}
