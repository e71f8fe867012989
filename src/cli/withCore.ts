// A command's core for the length of one piece of work, shut down after it whatever happens (so an
// export or import it started is stopped and audited, and app state is closed).
import { createCore, type Core, type CoreOptions } from '../core/createCore';

export async function withCore<T>(options: CoreOptions, work: (core: Core) => T | Promise<T>): Promise<T> {
  const core = createCore(options);
  try {
    return await work(core);
  } finally {
    await core.shutdown();
  }
}
