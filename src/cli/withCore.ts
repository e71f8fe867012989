// A command's core for the length of one piece of work, shut down after it whatever happens (so an
// export or import it started is stopped and audited, and app state is closed).
import { defaultHomeDir } from '../core/appState/homeDir';
import { homeLayout } from '../core/appState/homeLayout';
import { createCore, type Core, type CoreOptions } from '../core/createCore';
import { APP_STATE_WRITE_BYTES, diskFullError, isDiskFull } from '../core/fs/diskFull';
import { isAppError } from '../shared/errors';

export async function withCore<T>(options: CoreOptions, work: (core: Core) => T | Promise<T>): Promise<T> {
  let core: Core;
  try {
    core = createCore(options);
  } catch (e) {
    // Opening app state writes too (its WAL and shared-memory files): a full disk says so here.
    const appState = homeLayout(options.homeDir ?? defaultHomeDir()).appState;
    if (isDiskFull(e, appState) && !isAppError(e)) throw diskFullError(appState, APP_STATE_WRITE_BYTES);
    throw e;
  }
  // A damaged app state set aside at start-up: said on a line of its own, whatever the command.
  for (const notice of core.notices) process.stderr.write(`notice: ${notice}\n`);
  try {
    return await work(core);
  } catch (e) {
    // Only app state is written by SQLite here (datasets are read-only; import and generation say their own file).
    const appState = homeLayout(core.homeDir).appState;
    if (isDiskFull(e, appState) && !isAppError(e)) throw diskFullError(appState, APP_STATE_WRITE_BYTES);
    throw e;
  } finally {
    await core.shutdown();
  }
}
