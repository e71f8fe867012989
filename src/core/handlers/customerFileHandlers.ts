// Match and append and consumer opt-outs from the app: pick a file (the transport's own way of choosing
// files, as for lists and imports), then match it or import it. Only a picked file is read, so neither a
// compromised renderer nor a page holding browser mode's token can make the app read another file; the
// matched file goes where the transport puts exports (the save dialog, or browser mode's exports folder).
import { basename } from 'node:path';
import { EMPTY_MATCH_SUMMARY } from '../../shared/customerFiles';
import type { Core } from '../createCore';
import type { HandlerRegistry } from './registry';
import type { HandlerDeps } from './types';

/** matched-customers.csv for customers.csv.gz: says what it is, in the exports' format. */
const matchedName = (file: string): string =>
  `matched-${basename(file)
    .replace(/\.gz$/i, '')
    .replace(/\.[^.]*$/, '')}.csv`;

export function registerCustomerFileHandlers(registry: HandlerRegistry, core: Core, deps: HandlerDeps): void {
  registry.register('match/pick', async () => {
    const pick = await deps.pickImportFiles();
    return { ...pick, files: core.match.allow(pick.files) };
  });
  registry.register('match/run', async ({ file, fields, values, keep }) => {
    core.match.assertPicked(file);
    const out = await deps.resolveExportPath(matchedName(file), 'csv');
    if (out === null) return { ...structuredClone(EMPTY_MATCH_SUMMARY), path: null };
    const summary = await core.match.match({
      file,
      out,
      fields,
      values,
      keepAs: keep === undefined || keep.trim() === '' ? undefined : keep,
    });
    return { ...summary, path: out };
  });
  registry.register('optouts/pick', async () => {
    const pick = await deps.pickImportFiles();
    return { ...pick, files: core.optOuts.allow(pick.files) };
  });
  registry.register('optouts/import', ({ file }) => core.optOuts.importPicked(file));
  registry.register('optouts/list', async () => core.optOuts.list());
  registry.register('optouts/remove', async ({ id }) => core.optOuts.remove(id));
}
