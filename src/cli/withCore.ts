// A command's core for the length of one piece of work, shut down after it whatever happens (so an
// export or import it started is stopped and audited, and app state is closed).
import { createCore, type Core, type CoreOptions } from '../core/createCore';

export async function withCore<T>(options: CoreOptions, work: (core: Core) => T | Promise<T>): Promise<T> {
  const core = createCore(options);
  // A damaged app state set aside at start-up: said on a line of its own, whatever the command.
  for (const notice of core.notices) process.stderr.write(`notice: ${notice}\n`);
  try {
    return await work(core);
  } finally {
    await core.shutdown();
  }
}
