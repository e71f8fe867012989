// `backup --home DIR --out FILE` and `restore --from FILE [--yes] --home DIR`: app state (keys as
// their hashes, saved audiences, suppression lists and their secret, audit log and export history,
// settings) into one file written owner-only and atomically, and back. A restore prints what the
// backup would bring and changes nothing until it is confirmed: --yes, or `y` at the prompt when
// stdin is a terminal; with neither it refuses (issue 39). SECURITY.md "Backups" says what a backup holds.
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline/promises';
import { formatBytes } from '../../core/fs/diskFull';
import { parse, required, UsageError } from '../args';
import { withCore } from '../withCore';
import { formatRestorePreview } from './restoreSummary';

export async function backupCommand(argv: string[]): Promise<void> {
  const { values } = parse(argv, { home: { type: 'string' }, out: { type: 'string' } });
  const out = resolve(required(values, 'out'));
  await withCore({ homeDir: values.home }, (core) => {
    const info = core.backup(out);
    console.log(`backed up app state of ${core.homeDir} to ${info.path} (${formatBytes(info.bytes)})`);
  });
}

/** y/N on the terminal; anything but y or yes is no. */
async function confirmed(question: string): Promise<boolean> {
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    return /^\s*y(es)?\s*$/i.test(await rl.question(question));
  } finally {
    rl.close();
  }
}

export async function restoreCommand(argv: string[]): Promise<void> {
  const { values, positionals } = parse(argv, { home: { type: 'string' }, from: { type: 'string' }, yes: { type: 'boolean' } }, 1);
  if (values.from !== undefined && positionals[0] !== undefined) throw new UsageError('name the backup once: restore --from FILE');
  const file = values.from ?? positionals[0];
  if (!file) throw new UsageError('restore needs a backup file: restore --from FILE [--yes] --home DIR');
  if (!existsSync(file)) throw new UsageError(`no such file: ${file}`);
  const source = resolve(file);
  const yes = Boolean(values.yes); // a boolean option: true when given
  await withCore({ homeDir: values.home }, async (core) => {
    const staged = core.stageRestore(source);
    try {
      console.log(formatRestorePreview(staged.preview, source, core.homeDir));
      if (!yes) {
        if (!process.stdin.isTTY)
          throw new Error(
            'restore replaces app state only when confirmed: nothing was changed; run it again with --yes to restore this backup.',
          );
        if (!(await confirmed(`Replace the app state of ${core.homeDir} with this backup? [y/N] `)))
          throw new Error('not restored: nothing was changed.');
      }
      const s = staged.apply();
      console.log(
        `restored app state of ${core.homeDir} from ${source}: ${s.keys} keys, ${s.savedAudiences} saved audiences, ` +
          `${s.lists} suppression lists, ${s.auditEntries} audit entries, ${s.settings} settings`,
      );
      console.log(JSON.stringify(s));
    } finally {
      staged.discard();
    }
  });
}
