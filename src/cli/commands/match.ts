// `match FILE --fields NAME,... --out FILE [--values codes|labels] [--keep NAME] [--db FILE] [--home DIR]`:
// match and append (docs/match.md). Rejects are said by line number and reason on stderr; the last
// line of stdout is the JSON summary. Nothing here prints a value of the file or of a record.
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { isAppError } from '../../shared/errors';
import type { CoreOptions } from '../../core/createCore';
import { BUNDLED_DATASET_PATH } from '../bundledDataset';
import { parse, required, UsageError } from '../args';
import { withCore } from '../withCore';

function options(values: Record<string, string | undefined>): CoreOptions {
  const db = values.db !== undefined ? resolve(values.db) : existsSync(BUNDLED_DATASET_PATH) ? BUNDLED_DATASET_PATH : undefined;
  if (db === undefined) throw new UsageError('--db: no dataset to match against (name one with --db FILE)');
  if (!existsSync(db)) throw new UsageError(`--db: no dataset file at ${db}`);
  return { homeDir: values.home, datasetPath: db };
}

export async function matchCommand(argv: string[]): Promise<void> {
  const { values, positionals } = parse(
    argv,
    {
      fields: { type: 'string' },
      out: { type: 'string' },
      values: { type: 'string' },
      keep: { type: 'string' },
      db: { type: 'string' },
      home: { type: 'string' },
    },
    1,
  );
  const file = positionals[0];
  if (!file) throw new UsageError('match needs a file: match FILE --fields NAME,... --out FILE');
  const out = required(values, 'out');
  const fields = (values.fields ?? '').split(',').filter((f) => f.trim() !== '');
  const style = values.values ?? 'codes';
  if (style !== 'codes' && style !== 'labels') throw new UsageError(`--values is codes or labels, not "${style}"`);
  if (!existsSync(file)) throw new UsageError(`no such file: ${file}`);
  await withCore(options(values), async (core) => {
    let summary;
    try {
      summary = await core.match.match({ file, out, fields, values: style, keepAs: values.keep, followLinks: true });
    } catch (e) {
      if (isAppError(e) && (e.field === 'fields' || e.field === 'out' || e.field === 'name'))
        throw new UsageError(`--${e.field === 'name' ? 'keep' : e.field}: ${e.message}`);
      throw e;
    }
    for (const r of summary.rejects) process.stderr.write(`match: line ${r.line} rejected: ${r.reason}\n`);
    if (summary.rejected > summary.rejects.length)
      process.stderr.write(`match: ${summary.rejected - summary.rejects.length} more rows rejected\n`);
    const { rejects: _rejects, ...counts } = summary;
    console.log(
      `matched ${summary.matched} of ${summary.rows} rows into ${resolve(out)}${summary.list ? `; kept as list ${summary.list}` : ''}`,
    );
    console.log(JSON.stringify(counts));
  });
}
