// Browser mode has no open dialog, and a page must not be able to name any file on the machine: the
// files it may import are those in `<homeDir>/imports/` (the inbox, created owner-only on first use).
// "Choose files" offers all of them; the user removes the ones not wanted before starting. Only
// regular files are offered: a symbolic link there could name any file the user can read, and a
// FIFO would hang whoever opened it. Each entry's type is its own (lstat, never the target's), and
// nothing listed is opened; reading a picked file refuses a link swapped in later (fs/regularFile.ts).
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { homeLayout } from '../core/appState/homeLayout';
import { makePrivateDir } from '../core/fs/privateFile';
import type { ImportPick } from '../shared/contract';

/** deps.pickImportFiles for browser mode: the inbox's regular, non-hidden files, by name. */
export function browserImportPick(homeDir: string): () => Promise<ImportPick> {
  return async () => {
    const inbox = homeLayout(homeDir).imports;
    makePrivateDir(inbox);
    // A Dirent's type is the entry's own: a link is a link here, whatever it points to.
    const files = readdirSync(inbox, { withFileTypes: true })
      .filter((entry) => entry.isFile() && !entry.name.startsWith('.'))
      .map((entry) => join(inbox, entry.name))
      .sort();
    return { files, inbox };
  };
}
