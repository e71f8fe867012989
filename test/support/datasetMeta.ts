// A copy of a dataset file with meta entries changed (null: removed) and its checksum made right
// again: the file a writer that wrote other entries would have written (an older one, for example).
import { copyFileSync } from 'node:fs';
import Database from 'better-sqlite3';
import { tablesChecksum } from '../../src/core/dataset/codec/blockCodec';

export function copyWithMeta(source: string, target: string, entries: Record<string, string | null>): string {
  copyFileSync(source, target);
  const db = new Database(target);
  for (const [key, value] of Object.entries(entries))
    if (value === null) db.prepare('DELETE FROM meta WHERE key = ?').run(key);
    else db.prepare('INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)').run(key, value);
  const meta = Object.fromEntries((db.prepare('SELECT key, value FROM meta').raw().all() as string[][]).map(([k, v]) => [k, v]));
  const states = db.prepare('SELECT state, first, count FROM states').all() as Array<{ state: string; first: number; count: number }>;
  db.prepare("UPDATE meta SET value = ? WHERE key = 'checksum'").run(tablesChecksum(meta, states));
  db.close();
  return target;
}
