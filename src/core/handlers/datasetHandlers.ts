// Nothing lost (README): the dataset history (list, switch, delete, how many to keep), app-state
// backups in <home>/backups (list, create, preview and restore one by name: never a path, so a page
// holding browser mode's token cannot make the app read or write files elsewhere) and start-up notices.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { backupInFolder, backupsDir, listBackups, newBackupName } from '../appState/backup';
import { AppError } from '../../shared/errors';
import type { Core } from '../createCore';
import type { HandlerRegistry } from './registry';

export function registerDatasetHandlers(registry: HandlerRegistry, core: Core): void {
  registry.register('datasets/list', () => core.datasets.list());
  registry.register('datasets/switch', ({ id }) => core.switchToDataset(id));
  registry.register('datasets/delete', ({ id }) => {
    core.datasets.remove(id);
    return { ok: true as const };
  });
  registry.register('datasets/keep', ({ keep }) => core.datasets.setKeep(keep));

  registry.register('backup/list', () => ({ folder: backupsDir(core.homeDir), backups: listBackups(core.homeDir) }));
  registry.register('backup/create', () => {
    const dir = backupsDir(core.homeDir);
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    return core.backup(join(dir, newBackupName()));
  });
  // Shown before it replaces anything (issue 39); the restore runs only on the file that was shown.
  registry.register('backup/preview', ({ name }) => {
    const staged = core.stageRestore(backupInFolder(core.homeDir, name));
    try {
      return staged.preview;
    } finally {
      staged.discard();
    }
  });
  registry.register('backup/restore', ({ name, fingerprint }) => {
    const staged = core.stageRestore(backupInFolder(core.homeDir, name));
    try {
      if (staged.preview.fingerprint !== fingerprint)
        throw new AppError('invalid_request', `${name} changed since it was shown; look at it again before restoring it.`, 'fingerprint');
      return staged.apply();
    } finally {
      staged.discard();
    }
  });

  registry.register('app/notices', () => ({ notices: [...core.notices] }));
}
