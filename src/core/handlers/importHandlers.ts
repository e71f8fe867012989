// Importing vendor files from the app: pick (the transport's own way of choosing files), inspect
// (the header mapping, before anything is written), start, status, cancel, and current (a reloaded
// page finds the running import again). The work itself is core.importJobs'.
import type { Core } from '../createCore';
import type { HandlerRegistry } from './registry';
import type { HandlerDeps } from './types';

export function registerImportHandlers(registry: HandlerRegistry, core: Core, deps: HandlerDeps): void {
  registry.register('import/pick', async () => {
    const pick = await deps.pickImportFiles();
    return { ...pick, files: core.importJobs.allow(pick.files) };
  });
  registry.register('import/inspect', ({ files, delimiter, columns }) => core.importJobs.plan(files, delimiter, columns));
  registry.register('import/start', ({ files, delimiter, columns }) =>
    core.importJobs.start({ files, delimiter, columns, actor: deps.actor ?? 'UI' }),
  );
  registry.register('import/status', ({ id }) => core.importJobs.status(id));
  registry.register('import/cancel', ({ id }) => core.importJobs.cancel(id));
  registry.register('import/current', () => ({ job: core.importJobs.current() }));
  registry.register('import/confirm', ({ id, switch: switchTo }) => core.importJobs.confirm(id, switchTo));
}
