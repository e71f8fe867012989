// The workspace the app reopens with (the audience being built and the grid's columns), in app
// state's settings table beside the desktop app's other remembered choices. Kept in app state, not
// the renderer's localStorage, because browser mode's page origin carries a port that changes with
// every `serve`, and the desktop app and browser mode should reopen the same audience.
import { workspaceSchema, type Workspace } from '../../shared/contract';
import type { Db, Statement } from '../sqlite';

const KEY = 'workspace';
const EMPTY: Workspace = { audience: null };

export class WorkspaceState {
  private readonly get_: Statement;
  private readonly set_: Statement;

  constructor(db: Db) {
    this.get_ = db.prepare('SELECT value FROM settings WHERE key = ?').pluck();
    this.set_ = db.prepare('INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value');
  }

  /** What was kept; a missing or damaged value (an older version's, a hand edit) reads as an empty workspace. */
  get(): Workspace {
    const text = this.get_.get(KEY) as string | undefined;
    if (text === undefined) return EMPTY;
    try {
      const parsed = workspaceSchema.safeParse(JSON.parse(text));
      return parsed.success ? parsed.data : EMPTY;
    } catch {
      return EMPTY;
    }
  }

  /** Input already parsed by the operation's schema. */
  set(workspace: Workspace): void {
    this.set_.run(KEY, JSON.stringify(workspace));
  }
}
