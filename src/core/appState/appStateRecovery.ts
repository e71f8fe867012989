// A damaged app-state file must not stop the app for good, and must not be thrown away: it may be
// the only copy of keys and saved audiences someone can still rescue. At start-up a file SQLite
// cannot read, or whose quick_check fails, is moved aside (renamed, never deleted) to
// `app-state.damaged-<time>.sqlite` with its -wal/-shm, the app starts with a clean app state, and
// the notice says what happened and where the file went (CLI: stderr; app: app/notices).
// A file from a newer build is not damage: that is refused as before, untouched.
import { existsSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { fsyncPath } from '../fs/atomicFile';
import { fileStamp } from '../fs/fileStamp';
import type { Db } from '../sqlite';
import { openAppState } from './appStateDb';
import { homeLayout } from './homeLayout';

const DAMAGE_CODES = new Set(['SQLITE_CORRUPT', 'SQLITE_NOTADB', 'SQLITE_CORRUPT_VTAB', 'SQLITE_CORRUPT_SEQUENCE', 'SQLITE_CORRUPT_INDEX']);

export function isDamage(e: unknown): boolean {
  const code = (e as { code?: unknown } | null)?.code;
  return typeof code === 'string' && DAMAGE_CODES.has(code);
}

class DamagedAppState extends Error {
  constructor(readonly detail: string) {
    super(detail);
  }
}

function openChecked(homeDir: string): Db {
  const db = openAppState(homeDir);
  try {
    const result = db.pragma('quick_check', { simple: true }) as string;
    if (result !== 'ok') throw new DamagedAppState(String(result).slice(0, 200));
    return db;
  } catch (e) {
    db.close();
    throw e;
  }
}

/** Moves the app-state file and its -wal/-shm aside under one damaged-<time> name; returns the new path. */
export function setAside(homeDir: string, now = new Date()): string {
  const path = homeLayout(homeDir).appState;
  const aside = join(homeDir, `app-state.damaged-${fileStamp(now)}-${process.pid}.sqlite`);
  for (const suffix of ['-wal', '-shm', '']) if (existsSync(path + suffix)) renameSync(path + suffix, aside + suffix);
  fsyncPath(homeDir);
  return aside;
}

export interface OpenedAppState {
  db: Db;
  notices: string[];
}

export function openAppStateOrSetAside(homeDir: string): OpenedAppState {
  try {
    return { db: openChecked(homeDir), notices: [] };
  } catch (e) {
    if (!(e instanceof DamagedAppState) && !isDamage(e)) throw e;
    const aside = setAside(homeDir);
    const db = openAppState(homeDir);
    return {
      db,
      notices: [
        `App state was damaged and could not be read (${e instanceof Error ? e.message : String(e)}). ` +
          `It was set aside, not deleted, as ${aside}; the app started with empty app state (no keys, saved audiences, ` +
          'lists or settings). Restore a backup to bring them back.',
      ],
    };
  }
}
