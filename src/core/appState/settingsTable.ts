// App state's `settings` table: one JSON value a key. Each owner of a key (the desktop app's window
// and port, the workspace, the data source, the dataset history) declares its keys and checks its
// own values; this is only where they are read and written, so every owner reads a damaged or
// missing value the same way: as absent.
import type { Db, Statement } from '../sqlite';

/**
 * The Data source setting's keys (dataSource/dataSourceSettings.ts owns their values). Named here,
 * below both, because a restore shows what a backup's settings would choose before anything is
 * replaced (restorePreview.ts).
 */
export const DATA_SOURCE_KIND_SETTING = 'datasource.kind';
export const DATA_SOURCE_CLICKHOUSE_SETTING = 'datasource.clickhouse';

export class SettingsTable {
  private readonly get_: Statement;
  private readonly set_: Statement;
  private readonly delete_: Statement;

  constructor(db: Db) {
    this.get_ = db.prepare('SELECT value FROM settings WHERE key = ?').pluck();
    this.set_ = db.prepare('INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value');
    this.delete_ = db.prepare('DELETE FROM settings WHERE key = ?');
  }

  /** The key's stored text, for an owner that tells a damaged value from a missing one. */
  readText(key: string): string | undefined {
    return this.get_.get(key) as string | undefined;
  }

  /** The key's value, parsed; undefined when there is none or it is not JSON (a hand edit, a damaged row). */
  read(key: string): unknown {
    const text = this.readText(key);
    if (text === undefined) return undefined;
    try {
      return JSON.parse(text) as unknown;
    } catch {
      return undefined;
    }
  }

  write(key: string, value: unknown): void {
    this.set_.run(key, JSON.stringify(value));
  }

  remove(key: string): void {
    this.delete_.run(key);
  }
}
