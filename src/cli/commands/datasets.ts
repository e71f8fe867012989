// `datasets list|delete|keep [--home DIR]`: the dataset history the app keeps (README "Nothing
// lost"). The CLI has no running dataset of its own, so it lists and deletes what the app noted;
// the one the desktop app opens next (`dataset.last`) is never deleted or pruned.
import { formatBytes } from '../../core/fs/diskFull';
import { onePositional, parse, UsageError, wholeNumber } from '../args';
import { withCore } from '../withCore';

const HOME = { home: { type: 'string' } } as const;

export async function datasetsCommand(argv: string[]): Promise<void> {
  const [action, ...rest] = argv;
  switch (action) {
    case 'list': {
      const { values } = parse(rest, HOME);
      await withCore({ homeDir: values.home }, (core) => {
        for (const d of core.datasets.list().datasets)
          console.log(
            [
              d.id,
              `${d.records} records`,
              `created ${d.createdAt ?? 'unknown'}`,
              d.sources.length ? `from ${d.sources.join(', ')}` : 'no source files',
              formatBytes(d.bytes),
              d.lastActiveAt ? `last used ${d.lastActiveAt}` : 'never used',
              d.path,
            ].join('\t'),
          );
      });
      return;
    }
    case 'delete': {
      const { values, value: id } = onePositional(rest, HOME, 'datasets delete needs the dataset id (see datasets list)');
      await withCore({ homeDir: values.home }, (core) => {
        const entry = core.datasets.get(id);
        core.datasets.remove(id);
        console.log(`${entry.managed ? 'deleted' : 'forgot'} dataset ${entry.id}`);
      });
      return;
    }
    case 'keep': {
      const { values, positionals } = parse(rest, HOME, 1);
      const keep = wholeNumber(positionals[0], 'keep', -1);
      if (keep < 0 || keep > 50) throw new UsageError('datasets keep needs a number of previous datasets from 0 to 50');
      await withCore({ homeDir: values.home }, (core) => {
        const list = core.datasets.setKeep(keep);
        console.log(`keeping ${list.keep} previous datasets`);
      });
      return;
    }
    default:
      throw new UsageError('datasets takes list, delete or keep');
  }
}
