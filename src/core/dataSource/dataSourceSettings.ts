// The data source the app opens at start, kept in app state's settings table: `datasource.kind`
// ('embedded': a dataset file, the bundled one or the last one used; 'clickhouse': the server in
// `datasource.clickhouse`) and the server's address, fallback nodes, database and user. Never the
// password: that is the SecretStore's. A missing or damaged value reads as the default (embedded); a
// value kept before fallback nodes existed reads as having none.
import { DATA_SOURCE_CLICKHOUSE_SETTING, DATA_SOURCE_KIND_SETTING, SettingsTable } from '../appState/settingsTable';
import type { Db } from '../sqlite';

export type DataSourceKind = 'embedded' | 'clickhouse';

export interface ClickHouseSourceSetting {
  url: string;
  /** Other nodes of the same cluster, asked in order when `url` does not answer; empty for one server. */
  fallbackUrls: string[];
  database: string;
  user: string;
}

const KIND_SETTING = DATA_SOURCE_KIND_SETTING;
const CLICKHOUSE_SETTING = DATA_SOURCE_CLICKHOUSE_SETTING;

const isText = (x: unknown): x is string => typeof x === 'string' && x.length > 0;

function isClickHouseSetting(v: unknown): v is Omit<ClickHouseSourceSetting, 'fallbackUrls'> & { fallbackUrls?: string[] } {
  const s = v as Partial<ClickHouseSourceSetting>;
  return (
    typeof v === 'object' &&
    v !== null &&
    [s.url, s.database, s.user].every(isText) &&
    (s.fallbackUrls === undefined || (Array.isArray(s.fallbackUrls) && s.fallbackUrls.every(isText)))
  );
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
    if (!isClickHouseSetting(value)) return null;
    return { url: value.url, fallbackUrls: [...(value.fallbackUrls ?? [])], database: value.database, user: value.user };
  }

  /** ClickHouse from now on, with its address (both in one transaction); no fallbackUrls: none. */
  useClickHouse(setting: Omit<ClickHouseSourceSetting, 'fallbackUrls'> & { fallbackUrls?: string[] }): void {
    this.db.transaction(() => {
      this.settings.write(CLICKHOUSE_SETTING, { ...setting, fallbackUrls: setting.fallbackUrls ?? [] });
      this.settings.write(KIND_SETTING, 'clickhouse');
    })();
  }

  /** A dataset file from now on; the ClickHouse address stays for switching back. */
  useEmbedded(): void {
    this.settings.write(KIND_SETTING, 'embedded');
  }
}
