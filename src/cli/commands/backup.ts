// `backup --home DIR --out FILE` and `restore FILE --home DIR`: app state (keys as their hashes,
// saved audiences, suppression lists and their secret, audit log and export history, settings) into
// one file written atomically, and back. SECURITY.md "Backups" says what a backup holds.
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { formatBytes } from '../../core/fs/diskFull';
import { parse, required, UsageError } from '../args';
import { withCore } from '../withCore';

export async function backupCommand(argv: string[]): Promise<void> {
  const { values } = parse(argv, { home: { type: 'string' }, out: { type: 'string' } });
  const out = resolve(required(values, 'out'));
  await withCore({ homeDir: values.home }, (core) => {
    const info = core.backup(out);
    console.log(`backed up app state of ${core.homeDir} to ${info.path} (${formatBytes(info.bytes)})`);
  });
}

export async function restoreCommand(argv: string[]): Promise<void> {
  const { values, positionals } = parse(argv, { home: { type: 'string' } }, 1);
  const file = positionals[0];
  if (!file) throw new UsageError('restore needs a backup file: restore FILE --home DIR');
  if (!existsSync(file)) throw new UsageError(`no such file: ${file}`);
  await withCore({ homeDir: values.home }, (core) => {
    const s = core.restore(resolve(file));
    console.log(
      `restored app state of ${core.homeDir} from ${resolve(file)}: ${s.keys} keys, ${s.savedAudiences} saved audiences, ` +
        `${s.lists} suppression lists, ${s.auditEntries} audit entries, ${s.settings} settings`,
    );
    console.log(JSON.stringify(s));
  });
}
