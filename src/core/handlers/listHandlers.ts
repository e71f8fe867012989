// Suppression lists from the app: pick a file (the transport's own way of choosing files, as for
// imports), import it under a name, list, delete. Only a picked file may be imported, so neither a
// compromised renderer nor a page holding browser mode's token can make the app read another file.
import type { Core } from '../createCore';
import type { HandlerRegistry } from './registry';
import type { HandlerDeps } from './types';

export function registerListHandlers(registry: HandlerRegistry, core: Core, deps: HandlerDeps): void {
  registry.register('lists/pick', async () => {
    const pick = await deps.pickImportFiles();
    return { ...pick, files: core.lists.allow(pick.files) };
  });
  registry.register('lists/import', ({ file, name }) => core.lists.importPicked(file, name));
  registry.register('lists/list', () => core.lists.list());
  registry.register('lists/delete', ({ id }) => {
    core.lists.delete(id);
    return { ok: true as const };
  });
}
