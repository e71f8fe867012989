// One test worker at a time for work that writes shared files (a build into out/, the bundled
// browser's unpacking): a directory made with mkdir is the lock, since mkdir either creates it or
// fails, on every file system. A lock left by a killed run is taken over once it is older than any
// holder would keep it, or after three minutes of waiting.
import { mkdirSync, rmSync, statSync } from 'node:fs';
import { dirname } from 'node:path';

const WAIT_MAX_MS = 180_000;
const HELD_MAX_MS = 300_000;

export async function withDirLock<T>(lock: string, work: () => T | Promise<T>): Promise<T> {
  mkdirSync(dirname(lock), { recursive: true });
  for (let waited = 0; ; waited += 250) {
    try {
      mkdirSync(lock);
      break;
    } catch {
      const held = statSync(lock, { throwIfNoEntry: false });
      if (waited > WAIT_MAX_MS || (held && Date.now() - held.mtimeMs > HELD_MAX_MS)) rmSync(lock, { recursive: true, force: true });
      await new Promise((r) => setTimeout(r, 250));
    }
  }
  try {
    return await work();
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}
