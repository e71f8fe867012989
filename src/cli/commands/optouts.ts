// `optouts import FILE`, `optouts list`, `optouts remove ID` (docs/optouts.md): consumer opt-outs in
// app state. Nothing here prints a value of a file: counts, line numbers and reasons. import's last
// line is one JSON object for scripts.
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import type { CoreOptions } from '../../core/createCore';
import type { OptOutImport } from '../../core/optouts/consumerOptOuts';
import { BUNDLED_DATASET_PATH } from '../bundledDataset';
import { onePositional, parse, UsageError } from '../args';
import { withCore } from '../withCore';

const COMMON = { home: { type: 'string' }, db: { type: 'string' } } as const;

/** The core's options: --db, else the bundled dataset when there is one (for `matched`), else none. */
function options(values: Record<string, string | undefined>): CoreOptions {
  const db = values.db !== undefined ? resolve(values.db) : existsSync(BUNDLED_DATASET_PATH) ? BUNDLED_DATASET_PATH : undefined;
  if (db !== undefined && !existsSync(db)) throw new UsageError(`--db: no dataset file at ${db}`);
  return { homeDir: values.home, datasetPath: db };
}

function summary(o: OptOutImport): string {
  const { id, createdAt, rows, pids, phones, people, rejected, matched } = o;
  return JSON.stringify({ id, createdAt, rows, pids, phones, people, rejected, matched });
}

export async function optoutsCommand(argv: string[]): Promise<void> {
  const [action, ...rest] = argv;
  switch (action) {
    case 'import': {
      const { values, positionals } = parse(rest, COMMON, 1);
      const file = positionals[0];
      if (!file) throw new UsageError('optouts import needs a file: optouts import FILE');
      if (!existsSync(file)) throw new UsageError(`no such file: ${file}`);
      await withCore(options(values), async (core) => {
        const info = await core.optOuts.import(file, true); // the user typed the path: a link is followed
        for (const r of info.rejects) process.stderr.write(`optouts: line ${r.line} rejected: ${r.reason}\n`);
        if (info.rejected > info.rejects.length)
          process.stderr.write(`optouts: ${info.rejected - info.rejects.length} more rows rejected\n`);
        console.log(`imported opt-outs ${info.id}: ${info.rows} rows, ${info.rejected} rejected, ${info.matched ?? 'n/a'} people matched`);
        console.log(summary(info));
      });
      return;
    }
    case 'list': {
      const { values } = parse(rest, { home: COMMON.home });
      await withCore({ homeDir: values.home }, (core) => {
        for (const o of core.optOuts.list())
          console.log(
            [
              o.id,
              `imported ${o.createdAt}`,
              `${o.rows} rows`,
              `${o.pids} PIDs, ${o.phones} phones, ${o.people} people at addresses`,
              `${o.rejected} rejected`,
              `matched ${o.matched ?? 'n/a (no dataset)'}${o.dataset ? ` in ${o.dataset}` : ''}`,
              o.removedAt ? `removed ${o.removedAt}` : 'in force',
            ].join('\t'),
          );
      });
      return;
    }
    case 'remove': {
      const { values, value: id } = onePositional(rest, { home: COMMON.home }, 'optouts remove needs the import id (see optouts list)');
      await withCore({ homeDir: values.home }, (core) => {
        core.optOuts.remove(id);
        console.log(`removed opt-outs ${id}`);
      });
      return;
    }
    default:
      throw new UsageError('optouts takes import, list or remove');
  }
}
