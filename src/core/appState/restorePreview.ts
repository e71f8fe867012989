// What a staged backup would bring (issue 39: restore shows before it replaces): the API keys by name
// with their count and which of them this home does not have now, the suppression lists with their
// counts, the saved audiences, and the ClickHouse server its settings name. Read from the staged copy
// after it was checked exactly and migrated (restore.ts), so every table is this build's own; the
// live app state is only asked which key hashes it already has.
// Decision on a backup's API keys: they are restored and keep working. They are the user's own keys,
// and restoring into a new home (a new computer) must bring them, so a rule such as "restored keys
// start revoked" would break the one thing a backup is for. But a crafted backup can hold the hash of
// a key its author knows, so no key comes back unseen: each is shown by name before the user agrees,
// with those this home does not have now marked NEW (the count too), and the restore runs only after
// that confirmation (--yes or y in the CLI, a second click on what was shown in the app).
import type { RestoreKey, RestoreList, RestorePreview } from '../../shared/contract';
import { DATA_SOURCE_CLICKHOUSE_SETTING, DATA_SOURCE_KIND_SETTING } from './settingsTable';
import { openSqlite, type Db } from '../sqlite';
import { shownText } from './shownText';

/** Names shown per kind; the counts are always whole. */
export const PREVIEW_MAX = 100;

interface KeyRow {
  name: unknown;
  prefix: unknown;
  createdAt: unknown;
  revokedAt: unknown;
  hash: unknown;
}

const text = (v: unknown, max = 100): string => shownText(typeof v === 'string' ? v : String(v), max);
const whole = (v: unknown): number => (typeof v === 'number' && Number.isSafeInteger(v) ? v : 0);

function setting(backup: Db, key: string): unknown {
  const value = backup.prepare('SELECT value FROM settings WHERE key = ?').pluck().get(key);
  try {
    return typeof value === 'string' ? (JSON.parse(value) as unknown) : undefined;
  } catch {
    return undefined;
  }
}

function clickhouseOf(backup: Db): RestorePreview['clickhouse'] {
  const s = setting(backup, DATA_SOURCE_CLICKHOUSE_SETTING) as
    { url?: unknown; fallbackUrls?: unknown; database?: unknown; user?: unknown } | undefined;
  if (typeof s !== 'object' || s === null || typeof s.url !== 'string') return null;
  // The settings allow 16 nodes; a backup edited by hand may say anything, and shows what it says, escaped.
  const fallbacks = Array.isArray(s.fallbackUrls) ? (s.fallbackUrls as unknown[]) : [];
  return {
    url: text(s.url, 200),
    fallbackUrls: fallbacks.slice(0, 16).map((u) => text(u, 200)),
    database: text(s.database ?? ''),
    user: text(s.user ?? ''),
    chosen: setting(backup, DATA_SOURCE_KIND_SETTING) === 'clickhouse',
  };
}

export function readPreview(
  live: Db,
  staging: string,
  meta: { name: string; fingerprint: string; createdAt: string | null },
): RestorePreview {
  const backup = openSqlite(staging, { readonly: true, fileMustExist: true });
  try {
    backup.pragma('trusted_schema = OFF');
    const count = (table: string): number => whole(backup.prepare(`SELECT count(*) FROM ${table}`).pluck().get());
    const known = live.prepare('SELECT 1 FROM api_keys WHERE hash = ?').pluck();
    const keyRows = backup
      .prepare('SELECT name, prefix, created_at AS createdAt, revoked_at AS revokedAt, hash FROM api_keys ORDER BY created_at, id')
      .all() as KeyRow[];
    const keys: RestoreKey[] = keyRows.map((k) => ({
      name: text(k.name),
      prefix: text(k.prefix, 12),
      createdAt: text(k.createdAt, 40),
      revoked: k.revokedAt !== null,
      inThisHome: known.get(k.hash) !== undefined,
    }));
    const lists = (
      backup.prepare('SELECT name, pids, phones, addresses FROM suppression_lists ORDER BY created_at, id').all() as Array<
        Record<keyof RestoreList, unknown>
      >
    ).map((l) => ({ name: text(l.name), pids: whole(l.pids), phones: whole(l.phones), addresses: whole(l.addresses) }));
    const audiences = backup.prepare('SELECT name FROM saved_audiences ORDER BY name').pluck().all();
    const active = keys.filter((k) => !k.revoked);
    return {
      ...meta,
      keys: keys.slice(0, PREVIEW_MAX),
      lists: lists.slice(0, PREVIEW_MAX),
      savedAudiences: audiences.slice(0, PREVIEW_MAX).map((n) => text(n)),
      clickhouse: clickhouseOf(backup),
      counts: {
        keys: keys.length,
        activeKeys: active.length,
        newKeys: active.filter((k) => !k.inThisHome).length,
        lists: lists.length,
        savedAudiences: audiences.length,
        auditEntries: count('audit_log'),
        settings: count('settings'),
      },
    };
  } finally {
    backup.close();
  }
}
