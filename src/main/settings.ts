// The desktop app's remembered choices (window size, last dataset, API port), in app state's
// settings table. Declared once with defaults, so a missing or damaged value falls back instead of
// breaking start-up. The table itself is src/core/appState/settingsTable.ts.
import { SettingsTable } from '../core/appState/settingsTable';
import type { Db } from '../core/sqlite';

export interface WindowBounds {
  width: number;
  height: number;
  x?: number;
  y?: number;
}

export interface SettingValues {
  'window.bounds': WindowBounds;
  'dataset.last': string | null;
  'api.port': number;
}

export const SETTING_DEFAULTS: SettingValues = {
  'window.bounds': { width: 1280, height: 820 },
  'dataset.last': null,
  'api.port': 0,
};

const VALID: { [K in keyof SettingValues]: (v: unknown) => boolean } = {
  'window.bounds': (v) => {
    const b = v as WindowBounds;
    const int = (n: unknown) => Number.isSafeInteger(n);
    return (
      typeof v === 'object' &&
      v !== null &&
      int(b.width) &&
      int(b.height) &&
      b.width >= 400 &&
      b.height >= 300 &&
      (b.x === undefined || int(b.x)) &&
      (b.y === undefined || int(b.y))
    );
  },
  'dataset.last': (v) => v === null || (typeof v === 'string' && v.length > 0),
  'api.port': (v) => Number.isSafeInteger(v) && (v as number) >= 0 && (v as number) <= 65535,
};

export class Settings {
  private readonly table: SettingsTable;

  constructor(db: Db) {
    this.table = new SettingsTable(db);
  }

  get<K extends keyof SettingValues>(key: K): SettingValues[K] {
    const value = this.table.read(key);
    return value !== undefined && VALID[key](value) ? (value as SettingValues[K]) : SETTING_DEFAULTS[key];
  }

  set<K extends keyof SettingValues>(key: K, value: SettingValues[K]): void {
    if (!VALID[key](value)) return;
    this.table.write(key, value);
  }
}
