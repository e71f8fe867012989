// The files a user chose in the app (a file dialog, or the browser mode's inbox). A service that
// reads files for the app reads only these: a renderer, or a page in a browser, cannot name any other
// path on the machine. Each service keeps its own set and says in its own words which button hands
// files out.
import { basename, resolve } from 'node:path';
import { AppError } from '../../shared/errors';

export class PickedFiles {
  private readonly paths = new Set<string>();

  constructor(
    /** What to do instead, after "<name> was not chosen with": e.g. `"Choose file"; only chosen files can be imported.` */
    private readonly instead: string,
    /** The request key a refusal names. */
    private readonly field: string = 'file',
  ) {}

  /** Remembers the chosen paths; returns them resolved. */
  allow(paths: readonly string[]): string[] {
    const resolved = paths.map((p) => resolve(p));
    for (const p of resolved) this.paths.add(p);
    return resolved;
  }

  /** Refuses (403, naming the field) every path not handed out by allow; returns them resolved. */
  assert(paths: readonly string[]): string[] {
    const resolved = paths.map((p) => resolve(p));
    const foreign = resolved.find((p) => !this.paths.has(p));
    if (foreign !== undefined) throw new AppError('forbidden', `${basename(foreign)} was not chosen with ${this.instead}`, this.field);
    return resolved;
  }
}
