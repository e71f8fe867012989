// Where the app's files are: what lives in the home folder (app state, the datasets the app made,
// browser mode's exports and import inbox), and the bundled dataset's file name. Every module asks here.
import { join } from 'node:path';

/** The bundled sample dataset's file name: in resources/ during development, in the app's resources when packaged. */
export const BUNDLED_FILE_NAME = 'audience-desk-sample.sqlite';

export const APP_STATE_FILE = 'app-state.sqlite';

export interface HomeLayout {
  /** The home folder itself (created owner-only). */
  root: string;
  /** Keys, saved audiences, audit log and settings (SQLite, WAL). */
  appState: string;
  /** Datasets the app made itself (imports); only these may it delete. */
  datasets: string;
  /** Browser mode's export folder (a page cannot use a save dialog). */
  exports: string;
  /** Browser mode's import inbox (a page cannot hand the server a path). */
  imports: string;
}

export function homeLayout(homeDir: string): HomeLayout {
  return {
    root: homeDir,
    appState: join(homeDir, APP_STATE_FILE),
    datasets: join(homeDir, 'datasets'),
    exports: join(homeDir, 'exports'),
    imports: join(homeDir, 'imports'),
  };
}
