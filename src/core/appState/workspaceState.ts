// The workspace the app reopens with (the audience being built and the grid's columns), in app
// state's settings table beside the desktop app's other remembered choices. Kept in app state, not
// the renderer's localStorage, because browser mode's page origin carries a port that changes with
// every `serve`, and the desktop app and browser mode should reopen the same audience.
import { workspaceSchema, type Workspace } from '../../shared/contract';
import type { Db } from '../sqlite';
import { SettingsTable } from './settingsTable';

const KEY = 'workspace';
const EMPTY: Workspace = { audience: null };

export class WorkspaceState {
  private readonly settings: SettingsTable;

  constructor(db: Db) {
    this.settings = new SettingsTable(db);
  }

  /** What was kept; a missing or damaged value (an older version's, a hand edit) reads as an empty workspace. */
  get(): Workspace {
    const parsed = workspaceSchema.safeParse(this.settings.read(KEY));
    return parsed.success ? parsed.data : EMPTY;
  }

  /** Input already parsed by the operation's schema. */
  set(workspace: Workspace): void {
    this.settings.write(KEY, workspace);
  }
}
