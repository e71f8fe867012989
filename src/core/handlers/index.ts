// The one handler table of the renderer's operations (src/shared/contract.ts): Electron's IPC and
// browser mode's HTTP bridge both carry calls to exactly this object, so the two cannot drift.
import type { AudienceDeskApi } from '../../shared/contract';
import type { Core } from '../createCore';
import { registerAdminHandlers } from './adminHandlers';
import { registerAudienceHandlers } from './audienceHandlers';
import { registerDatasetHandlers } from './datasetHandlers';
import { registerDataSourceHandlers } from './dataSourceHandlers';
import { registerExportHandlers } from './exportHandlers';
import { registerImportHandlers } from './importHandlers';
import { registerInsightHandlers } from './insightHandlers';
import { registerListHandlers } from './listHandlers';
import { registerCustomerFileHandlers } from './customerFileHandlers';
import { registerWorkspaceHandlers } from './workspaceHandlers';
import { HandlerRegistry } from './registry';
import { homeLayout } from '../appState/homeLayout';
import { APP_STATE_WRITE_BYTES, diskFullError, isDiskFull } from '../fs/diskFull';
import type { HandlerDeps, HandlerTable } from './types';

export type { HandlerDeps, HandlerTable } from './types';
export { dispatch } from './dispatch';
export { isOperationName } from './registry';

export function createHandlers(core: Core, deps: HandlerDeps): HandlerTable {
  const logError = deps.logError ?? ((operation, error) => console.error(`${operation} failed:`, error));
  // A full disk met by an app-state write (keys, saved audiences, lists): said as such, naming the file.
  const appState = homeLayout(core.homeDir).appState;
  const registry = new HandlerRegistry(logError, (e) => (isDiskFull(e, appState) ? diskFullError(appState, APP_STATE_WRITE_BYTES) : null));
  registerAudienceHandlers(registry, core);
  registerExportHandlers(registry, core, deps);
  registerAdminHandlers(registry, core, deps);
  registerImportHandlers(registry, core, deps);
  registerListHandlers(registry, core, deps);
  registerCustomerFileHandlers(registry, core, deps);
  registerDatasetHandlers(registry, core);
  registerWorkspaceHandlers(registry, core);
  registerDataSourceHandlers(registry, core);
  registerInsightHandlers(registry, core);
  const table = registry.build();
  // The table is what the renderer's window.audienceDesk stands for, operation for operation.
  return table satisfies AudienceDeskApi;
}
