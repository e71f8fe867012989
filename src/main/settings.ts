// The desktop app's remembered choices (window size, last dataset, API port), in app state's
// settings table. Declared once with defaults, so a missing or damaged value falls back instead of
// breaking start-up.
// (This is the only SQL under src/main; it belongs in src/core/appState once the core grows a
// settings store of its own.)
import type { Db, Statement } from '../core/sqlite';

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
  private readonly get_: Statement;
  private readonly set_: Statement;

  constructor(db: Db) {
    this.get_ = db.prepare('SELECT value FROM settings WHERE key = ?').pluck();
    this.set_ = db.prepare('INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value');
  }

  get<K extends keyof SettingValues>(key: K): SettingValues[K] {
    const text = this.get_.get(key) as string | undefined;
    if (text === undefined) return SETTING_DEFAULTS[key];
    try {
      const value = JSON.parse(text) as unknown;
      return VALID[key](value) ? (value as SettingValues[K]) : SETTING_DEFAULTS[key];
    } catch {
      return SETTING_DEFAULTS[key];
    }
  }

  set<K extends keyof SettingValues>(key: K, value: SettingValues[K]): void {
    if (!VALID[key](value)) return;
    this.set_.run(key, JSON.stringify(value));
  }
}
