// The workspace the app reopens with (the audience being built, the grid's columns), kept in app
// state by appState/workspaceState.ts so a reload, a restart and browser mode all find it.
import { WorkspaceState } from '../appState/workspaceState';
import type { Core } from '../createCore';
import type { HandlerRegistry } from './registry';

export function registerWorkspaceHandlers(registry: HandlerRegistry, core: Core): void {
  const workspace = new WorkspaceState(core.appState);
  registry.register('workspace/get', () => workspace.get());
  registry.register('workspace/set', (input) => {
    workspace.set(input);
    return { ok: true as const };
  });
}
