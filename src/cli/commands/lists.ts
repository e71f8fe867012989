// `lists import FILE --name NAME`, `lists list`, `lists delete ID`: suppression lists in app state
// (docs/list-controls.md). Nothing here prints a value of a list: counts, line numbers and reasons.
// import's last line is one JSON object for scripts.
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import type { SuppressionListInfo } from '../../shared/contract';
import { isAppError } from '../../shared/errors';
import type { CoreOptions } from '../../core/createCore';
import { BUNDLED_DATASET_PATH } from '../bundledDataset';
import { onePositional, parse, required, UsageError } from '../args';
import { withCore } from '../withCore';

const COMMON = { home: { type: 'string' }, db: { type: 'string' } } as const;

/** The core's options: --db, else the bundled dataset when there is one (for `matched`), else none. */
function options(values: Record<string, string | undefined>): CoreOptions {
  const db = values.db !== undefined ? resolve(values.db) : existsSync(BUNDLED_DATASET_PATH) ? BUNDLED_DATASET_PATH : undefined;
  if (db !== undefined && !existsSync(db)) throw new UsageError(`--db: no dataset file at ${db}`);
  return { homeDir: values.home, datasetPath: db };
}

function summary(info: SuppressionListInfo): string {
  const { id, name, rows, pids, phones, addresses, rejected, matched } = info;
  return JSON.stringify({ id, name, rows, pids, phones, addresses, rejected, matched });
}

export async function listsCommand(argv: string[]): Promise<void> {
  const [action, ...rest] = argv;
  switch (action) {
    case 'import': {
      const { values, positionals } = parse(rest, { ...COMMON, name: { type: 'string' } }, 1);
      const file = positionals[0];
      if (!file) throw new UsageError('lists import needs a file: lists import FILE --name NAME');
      const name = required(values, 'name');
      if (!existsSync(file)) throw new UsageError(`no such file: ${file}`);
      await withCore(options(values), async (core) => {
        let info: SuppressionListInfo;
        try {
          info = await core.lists.import(file, name, true); // the user typed the path: a link is followed
        } catch (e) {
          if (isAppError(e) && e.field === 'name') throw new UsageError(e.message);
          throw e;
        }
        for (const r of info.rejects) process.stderr.write(`lists: line ${r.line} rejected: ${r.reason}\n`);
        if (info.rejected > info.rejects.length) process.stderr.write(`lists: ${info.rejected - info.rejects.length} more rows rejected\n`);
        console.log(`imported list ${info.id} "${info.name}": ${info.rows} rows, ${info.rejected} rejected`);
        console.log(summary(info));
      });
      return;
    }
    case 'list': {
      const { values } = parse(rest, COMMON);
      await withCore(options(values), async (core) => {
        for (const l of await core.lists.list())
          console.log(
            [
              l.id,
              l.name,
              `created ${l.createdAt}`,
              `${l.rows} rows`,
              `${l.pids} PIDs, ${l.phones} phones, ${l.addresses} addresses`,
              `${l.rejected} rejected`,
              `matched ${l.matched ?? 'n/a (no dataset)'}`,
            ].join('\t'),
          );
      });
      return;
    }
    case 'delete': {
      const { values, value: id } = onePositional(rest, { home: COMMON.home }, 'lists delete needs the list id (see lists list)');
      await withCore({ homeDir: values.home }, (core) => {
        core.lists.delete(id);
        console.log(`deleted list ${id}`);
      });
      return;
    }
    default:
      throw new UsageError('lists takes import, list or delete');
  }
}
