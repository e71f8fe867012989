// The datasets the app has used or made, so an import never strands the user: each is listed with
// its records, date, source files and size; the user switches back to any of them or deletes one.
// The app keeps `keep` previous datasets it made (setting `datasets.keep`, default 3) besides the
// active one and deletes older ones; it never deletes the active dataset, one an export still reads,
// or a file it did not make (the bundled dataset, a --db file): those are only forgotten.
import { existsSync, readdirSync, rmSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { DatasetEntry, DatasetList, DatasetRef } from '../../shared/contract';
import { AppError } from '../../shared/errors';
import { homeLayout } from '../appState/homeLayout';
import { SettingsTable } from '../appState/settingsTable';
import type { Db, Statement } from '../sqlite';
import { datasetRef, readDatasetFacts, type DatasetFacts } from './datasetRef';

/** A published dataset's name in <home>/datasets (imports: dataset-<time>-<random>.sqlite). */
const PUBLISHED = /^[^.][^/]*\.sqlite$/;

export const DEFAULT_KEEP = 3;
export const KEEP_SETTING = 'datasets.keep';

export interface DatasetHistoryDeps {
  /** The active dataset's path, or null. */
  active(): string | null;
  /** Paths still open: the active one and those an export is finishing from. */
  inUse(): ReadonlySet<string>;
}

interface Row {
  path: string;
  id: string;
  name: string;
  records: number;
  createdAt: string | null;
  sources: string;
  bytes: number;
  addedAt: string;
  lastActiveAt: string | null;
}

const COLUMNS = 'path, id, name, records, created_at AS createdAt, sources, bytes, added_at AS addedAt, active_at AS lastActiveAt';

function sizeOf(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}

export class DatasetHistory {
  private readonly stmt: Record<string, Statement>;
  private readonly datasetsDir: string;
  private readonly settings: SettingsTable;

  constructor(
    private readonly db: Db,
    homeDir: string,
    private readonly deps: DatasetHistoryDeps,
  ) {
    this.datasetsDir = resolve(homeLayout(homeDir).datasets);
    this.settings = new SettingsTable(db);
    this.stmt = {
      upsert: db.prepare(
        `INSERT INTO datasets (path, id, name, records, created_at, sources, bytes, added_at, active_at)
         VALUES (@path, @id, @name, @records, @createdAt, @sources, @bytes, @now, @activeAt)
         ON CONFLICT(path) DO UPDATE SET id = excluded.id, name = excluded.name, records = excluded.records,
           created_at = excluded.created_at, sources = excluded.sources, bytes = excluded.bytes,
           added_at = CASE WHEN datasets.id = excluded.id THEN datasets.added_at ELSE excluded.added_at END,
           active_at = COALESCE(excluded.active_at, CASE WHEN datasets.id = excluded.id THEN datasets.active_at END)`,
      ),
      dropOtherWithId: db.prepare('DELETE FROM datasets WHERE id = ? AND path != ?'),
      all: db.prepare(`SELECT ${COLUMNS} FROM datasets ORDER BY COALESCE(active_at, added_at) DESC, path`),
      byId: db.prepare(`SELECT ${COLUMNS} FROM datasets WHERE id = ?`),
      delete: db.prepare('DELETE FROM datasets WHERE path = ?'),
    };
  }

  /** Notes a dataset the app opened (active) or made without switching to it. */
  note(path: string, facts: DatasetFacts, active: boolean): DatasetRef {
    const full = resolve(path);
    const ref = datasetRef(full, facts);
    const now = new Date().toISOString();
    this.db.transaction(() => {
      // A file copied to another path keeps its identity: one entry per dataset, the newest path wins.
      this.stmt.dropOtherWithId!.run(ref.id, full);
      this.stmt.upsert!.run({
        path: full,
        id: ref.id,
        name: ref.name,
        records: facts.records,
        createdAt: facts.createdAt,
        sources: JSON.stringify(facts.sources),
        bytes: sizeOf(full),
        now,
        activeAt: active ? now : null,
      });
    })();
    return ref;
  }

  /** Datasets whose files are still there, the active one first, then the most recently used. */
  list(): DatasetList {
    const active = this.deps.active();
    const inUse = this.deps.inUse();
    const entries = (this.stmt.all!.all() as Row[]).filter((r) => existsSync(r.path)).map((r) => this.toEntry(r, active, inUse));
    entries.sort((a, b) => Number(b.active) - Number(a.active));
    return { datasets: entries, keep: this.keep() };
  }

  /** The dataset with this id; not_found when it is not in the history or its file is gone. */
  get(id: string): DatasetEntry {
    const row = this.stmt.byId!.get(id) as Row | undefined;
    if (!row || !existsSync(row.path))
      throw new AppError('not_found', 'That dataset is no longer in the history (its file is gone); choose another one.', 'id');
    return this.toEntry(row, this.deps.active(), this.deps.inUse());
  }

  keep(): number {
    const n = this.settings.read(KEEP_SETTING);
    return typeof n === 'number' && Number.isSafeInteger(n) && n >= 0 ? n : DEFAULT_KEEP;
  }

  /** Sets how many previous datasets to keep and deletes the ones beyond it now. */
  setKeep(keep: number): DatasetList {
    if (!Number.isSafeInteger(keep) || keep < 0 || keep > 50)
      throw new AppError('invalid_request', 'Keep between 0 and 50 previous datasets.', 'keep');
    this.settings.write(KEEP_SETTING, keep);
    this.prune();
    return this.list();
  }

  /**
   * Deletes a dataset the app made (its file and rejects file) or forgets one it did not make. The
   * active dataset, the one the desktop app opens next, and one an export still reads are refused.
   */
  remove(id: string): void {
    const entry = this.get(id);
    if (entry.active)
      throw new AppError('invalid_request', `${entry.name} is the dataset in use; switch to another one before deleting it.`, 'id');
    if (entry.path === this.remembered())
      throw new AppError(
        'invalid_request',
        `${entry.name} is the dataset the app opens next; switch to another one before deleting it.`,
        'id',
      );
    if (entry.inUse)
      throw new AppError('invalid_request', `An export is still reading ${entry.name}; delete it once the export has finished.`, 'id');
    this.forget(entry);
  }

  /**
   * Deletes the previous datasets the app made beyond `keep`, oldest use first; never one in use.
   * Finished dataset files in <home>/datasets the history does not know (a process killed between
   * publishing a dataset and noting it) are adopted first, so they are listed or pruned, never stray.
   */
  prune(): string[] {
    this.adoptStrays();
    const inUse = this.deps.inUse();
    const active = this.deps.active();
    // The desktop app's remembered dataset is the active one of a process that is not running (or
    // not yet opened it): never pruned, whatever process prunes.
    const remembered = this.remembered();
    const previous = this.list().datasets.filter((d) => d.managed && !d.active && d.path !== active);
    const removed: string[] = [];
    for (const d of previous.slice(this.keep())) {
      if (inUse.has(d.path) || d.path === remembered) continue;
      this.forget(d);
      removed.push(d.path);
    }
    return removed;
  }

  /** The desktop app's `dataset.last` (src/main/settings.ts), resolved; null when none. */
  private remembered(): string | null {
    // The desktop app's `dataset.last` (src/main/settings.ts).
    const value = this.settings.read('dataset.last');
    return typeof value === 'string' ? resolve(value) : null;
  }

  private adoptStrays(): void {
    let names: string[];
    try {
      names = readdirSync(this.datasetsDir);
    } catch {
      return;
    }
    const known = new Set((this.stmt.all!.all() as Row[]).map((r) => r.path));
    for (const name of names) {
      // Only published datasets: never a writer's temporary file (`.building-`, `.staging-`, `.partial-`, spill files).
      if (!PUBLISHED.test(name)) continue;
      const path = join(this.datasetsDir, name);
      if (known.has(path)) continue;
      let facts: DatasetFacts;
      try {
        facts = readDatasetFacts(path);
      } catch {
        continue; // not a dataset (or not readable): not ours to list or delete
      }
      this.note(path, facts, false);
    }
  }

  private forget(entry: DatasetEntry): void {
    // The row goes first: a crash between the two leaves a stray file in <home>/datasets, never an
    // entry pointing at a half-deleted one.
    this.stmt.delete!.run(entry.path);
    if (entry.managed) {
      rmSync(entry.path, { force: true });
      rmSync(`${entry.path}.rejects.csv`, { force: true });
    }
  }

  private toEntry(r: Row, active: string | null, inUse: ReadonlySet<string>): DatasetEntry {
    const isActive = active !== null && resolve(active) === r.path;
    let sources: string[];
    try {
      sources = JSON.parse(r.sources) as string[];
    } catch {
      sources = [];
    }
    return {
      id: r.id,
      name: r.name,
      records: r.records,
      path: r.path,
      createdAt: r.createdAt,
      sources,
      bytes: r.bytes,
      active: isActive,
      managed: dirname(r.path) === this.datasetsDir,
      inUse: isActive || inUse.has(r.path),
      addedAt: r.addedAt,
      lastActiveAt: r.lastActiveAt,
    };
  }
}
