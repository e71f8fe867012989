// `import FILE... --out DB [--rejects FILE] [--delimiter , | tab | pipe] [--map VENDOR=FIELD]...`: vendor files into a new
// dataset (see docs/import.md). Progress and notes go to stderr; the last line of stdout is one JSON
// object {"read","imported","rejected","replaced","seconds"} for scripts. SIGINT/SIGTERM cancel
// cleanly (the previous dataset stays).
import { isAppError } from '../../shared/errors';
import { checkImportArguments, importFiles, type Delimiter } from '../../core/import/importFiles';
import { checkColumnMap } from '../../core/import/source/rowRules';
import { parse, required, UsageError } from '../args';

const DELIMITER_NAMES: Readonly<Record<string, Delimiter>> = {
  ',': ',',
  comma: ',',
  '\t': '\t',
  '\\t': '\t',
  tab: '\t',
  '|': '|',
  pipe: '|',
};

/**
 * `--map "Vendor Column=FIELD"` (repeatable): a header the import does not know, as written, to the
 * record field it fills; `--map "Notes="` skips a column. Split at the last `=`, so a header may hold one.
 */
function columnMap(args: string | string[] | undefined): Record<string, string> | undefined {
  if (args === undefined) return undefined;
  const out: Record<string, string> = {};
  for (const arg of Array.isArray(args) ? args : [args]) {
    const at = arg.lastIndexOf('=');
    if (at <= 0) throw new UsageError(`--map takes HEADER=FIELD (or HEADER= to skip the column), not ${JSON.stringify(arg.slice(0, 60))}`);
    out[arg.slice(0, at).trim()] = arg.slice(at + 1).trim();
  }
  return out;
}

export async function importCommand(argv: string[]): Promise<void> {
  const { values, positionals } = parse(
    argv,
    { out: { type: 'string' }, rejects: { type: 'string' }, delimiter: { type: 'string' }, map: { type: 'string', multiple: true } },
    Number.POSITIVE_INFINITY,
  );
  if (positionals.length === 0) throw new UsageError('import needs at least one file: import FILE... --out DB');
  const out = required(values, 'out');
  let delimiter: Delimiter | undefined;
  if (values.delimiter !== undefined) {
    delimiter = DELIMITER_NAMES[values.delimiter.toLowerCase()];
    if (!delimiter)
      throw new UsageError(`--delimiter must be , or tab or | (also: comma, \\t, pipe), not ${JSON.stringify(values.delimiter)}`);
  }
  const columns = columnMap((values as { map?: string | string[] }).map);
  try {
    checkColumnMap(columns);
    // The user typed the paths: a link is followed (the app refuses one: fs/regularFile.ts).
    checkImportArguments({ files: positionals, out, rejectsPath: values.rejects, followLinks: true });
  } catch (e) {
    if (isAppError(e)) throw new UsageError(e.message);
    throw e;
  }

  const controller = new AbortController();
  const cancel = (): void => controller.abort();
  process.once('SIGINT', cancel);
  process.once('SIGTERM', cancel);
  const tty = process.stderr.isTTY;
  let progressShown = false;
  try {
    const summary = await importFiles({
      files: positionals,
      out,
      rejectsPath: values.rejects,
      followLinks: true,
      delimiter,
      columns,
      signal: controller.signal,
      onNotice: (message) => process.stderr.write(`import: ${message}\n`),
      onProgress: (p) => {
        if (!tty) return;
        progressShown = true;
        const pct = p.totalBytes > 0 ? Math.floor((100 * p.bytesRead) / p.totalBytes) : 100;
        process.stderr.write(
          p.phase === 'reading'
            ? `\rimport: reading ${p.rowsRead} rows (${pct}%), ${p.rowsPerSecond} rows/s   `
            : `\rimport: writing ${p.rowsWritten} records, ${p.rowsPerSecond} records/s   `,
        );
      },
    });
    if (progressShown) process.stderr.write('\n');
    process.stderr.write(
      `import: ${summary.records} records in ${summary.out}; ${summary.rejected} rejected rows in ${summary.rejectsPath}\n`,
    );
    const { read, imported, rejected, replaced, seconds } = summary;
    process.stdout.write(JSON.stringify({ read, imported, rejected, replaced, seconds }) + '\n');
  } finally {
    process.removeListener('SIGINT', cancel);
    process.removeListener('SIGTERM', cancel);
  }
}
