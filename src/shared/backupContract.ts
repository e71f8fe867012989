// The app-state backup operations' answers (backup/list, backup/create, backup/preview,
// backup/restore), kept apart from contract.ts, which re-exports them. A restore is shown before it
// replaces anything (issue 39): backup/preview answers what the backup would bring, and
// backup/restore runs only with the fingerprint that preview answered, so what is restored is the
// file the user looked at. Names and addresses come from the backup itself: control and direction
// characters are written out as \u escapes and long text is clipped (src/core/appState/shownText.ts).

export interface BackupInfo {
  name: string;
  path: string;
  bytes: number;
  createdAt: string;
}

/** What a restore brought back. */
export interface RestoreSummary {
  keys: number;
  savedAudiences: number;
  lists: number;
  auditEntries: number;
  settings: number;
}

/** An API key a backup holds (its hash only: the key itself is in no backup). */
export interface RestoreKey {
  name: string;
  /** The key's first characters, as the key list shows them. */
  prefix: string;
  createdAt: string;
  revoked: boolean;
  /**
   * This home has a key with the same hash now. False: after the restore a key works here that
   * did not before; expected for the user's own backup in a new home, a warning sign otherwise.
   */
  inThisHome: boolean;
}

export interface RestoreList {
  name: string;
  pids: number;
  phones: number;
  addresses: number;
}

/** What a backup would bring, shown before app state is replaced. Lists of names stop at 100; the counts are whole. */
export interface RestorePreview {
  /** The backup's file name. */
  name: string;
  /** SHA-256 of the file as checked and shown: backup/restore names it, and refuses a file that changed since. */
  fingerprint: string;
  /** When the backup was made, as it says. */
  createdAt: string | null;
  keys: RestoreKey[];
  lists: RestoreList[];
  savedAudiences: string[];
  /**
   * The ClickHouse server the backup's settings name (no password is ever in a backup), its fallback
   * nodes (requests go there when the server does not answer), and whether they choose it as the data source.
   */
  clickhouse: { url: string; fallbackUrls: string[]; database: string; user: string; chosen: boolean } | null;
  counts: {
    keys: number;
    /** Keys not revoked. */
    activeKeys: number;
    /** Keys not revoked that this home does not have now. */
    newKeys: number;
    lists: number;
    savedAudiences: number;
    auditEntries: number;
    settings: number;
  };
}
