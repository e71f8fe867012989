// The one shutdown of a running service, used by the desktop app and `serve` alike: the server stops
// taking requests (answers in flight finish), then the core stops its exports and imports, waits for
// their audit entries and closes the dataset and app state. Safe to call more than once.
import type { Core } from '../core/createCore';
import type { ApiServer } from './apiServer';

export async function shutdown(core: Core, server: ApiServer): Promise<void> {
  await server.close();
  await core.shutdown();
}
