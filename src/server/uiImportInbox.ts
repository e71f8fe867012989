// Browser mode has no open dialog, and a page must not be able to name any file on the machine: the
// files it may import are those in `<homeDir>/imports/` (the inbox, created owner-only on first use).
// "Choose files" offers all of them; the user removes the ones not wanted before starting.
import { mkdirSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { homeLayout } from '../core/appState/homeLayout';
import type { ImportPick } from '../shared/contract';

/** deps.pickImportFiles for browser mode: the inbox's regular, non-hidden files, by name. */
export function browserImportPick(homeDir: string): () => Promise<ImportPick> {
  return async () => {
    const inbox = homeLayout(homeDir).imports;
    mkdirSync(inbox, { recursive: true, mode: 0o700 });
    const files = readdirSync(inbox)
      .filter((name) => !name.startsWith('.'))
      .map((name) => join(inbox, name))
      .filter((path) => statSync(path, { throwIfNoEntry: false })?.isFile() ?? false)
      .sort();
    return { files, inbox };
  };
}
