// The data source the app opens at start, kept in app state's settings table: `datasource.kind`
// ('embedded': a dataset file, the bundled one or the last one used; 'clickhouse': the server in
// `datasource.clickhouse`) and the server's address, database and user. Never the password: that
// is the SecretStore's. A missing or damaged value reads as the default (embedded).
import { DATA_SOURCE_CLICKHOUSE_SETTING, DATA_SOURCE_KIND_SETTING, SettingsTable } from '../appState/settingsTable';
import type { Db } from '../sqlite';

export type DataSourceKind = 'embedded' | 'clickhouse';

export interface ClickHouseSourceSetting {
  url: string;
  database: string;
  user: string;
}

const KIND_SETTING = DATA_SOURCE_KIND_SETTING;
const CLICKHOUSE_SETTING = DATA_SOURCE_CLICKHOUSE_SETTING;

function isClickHouseSetting(v: unknown): v is ClickHouseSourceSetting {
  const s = v as ClickHouseSourceSetting;
  return typeof v === 'object' && v !== null && [s.url, s.database, s.user].every((x) => typeof x === 'string' && x.length > 0);
}

export class DataSourceSettings {
  private readonly settings: SettingsTable;

  constructor(private readonly db: Db) {
    this.settings = new SettingsTable(db);
  }

  kind(): DataSourceKind {
    return this.settings.read(KIND_SETTING) === 'clickhouse' && this.clickhouse() ? 'clickhouse' : 'embedded';
  }

  clickhouse(): ClickHouseSourceSetting | null {
    const value = this.settings.read(CLICKHOUSE_SETTING);
    return isClickHouseSetting(value) ? { url: value.url, database: value.database, user: value.user } : null;
  }

  /** ClickHouse from now on, with its address (both in one transaction). */
  useClickHouse(setting: ClickHouseSourceSetting): void {
    this.db.transaction(() => {
      this.settings.write(CLICKHOUSE_SETTING, setting);
      this.settings.write(KIND_SETTING, 'clickhouse');
    })();
  }

  /** A dataset file from now on; the ClickHouse address stays for switching back. */
  useEmbedded(): void {
    this.settings.write(KIND_SETTING, 'embedded');
  }
}
