// The import's scratch table: accepted rows arrive in file order and any (STATE, PID) order; the
// dataset writer needs ascending (STATE, PID) and one record per PID. A SQLite file beside the
// target holds them (memory stays constant however large the input) until every file is read;
// then the duplicates are dropped (the row read last wins) and the rows go to the dataset sorted:
// copied by the dataset's own connection (DatasetWriter.appendSelected, this file attached) in runs
// of one state, so no record text passes through JavaScript again; order() says the runs and, for
// the vectors built in arrival order, which input row lands at each position.
// The (STATE, PID) index is kept up to date while rows arrive: the import's main thread inserts
// while a worker parses, so that work costs no time, where building it afterwards did (~3 µs a row).
// The file is temporary: no journal, no syncs; it is deleted when the import ends, however it ends.
import { rmSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { openSqlite, type Db, type Statement } from '../sqlite';

const BATCH = 10_000;

/** `count` records of one state, those after PID `after` ('' for the state's first). */
export interface Run {
  state: string;
  after: string;
  count: number;
}

export class Staging {
  private readonly db: Db;
  private readonly insertRow: Statement;
  private pending = 0;
  private added = 0;
  private remaining = 0;
  private closed = false;

  constructor(readonly path: string) {
    rmSync(path, { force: true });
    this.db = openSqlite(path);
    this.db.pragma('journal_mode = OFF');
    this.db.pragma('synchronous = OFF');
    this.db.pragma('cache_size = -32768'); // 32 MB, whatever the input size
    this.db.pragma('temp_store = FILE');
    // seq = input order over all files: the later row of a PID has the larger seq.
    this.db.exec('CREATE TABLE rows (seq INTEGER PRIMARY KEY, pid TEXT NOT NULL, state TEXT NOT NULL, record TEXT NOT NULL)');
    this.db.exec('CREATE INDEX rows_order ON rows (state, pid)');
    this.insertRow = this.db.prepare('INSERT INTO rows (seq, pid, state, record) VALUES (?, ?, ?, ?)');
    this.db.exec('BEGIN');
  }

  add(seq: number, pid: string, state: string, record: string): void {
    this.insertRow.run(seq, pid, state, record);
    this.added++;
    if (++this.pending >= BATCH) {
      this.db.exec('COMMIT; BEGIN');
      this.pending = 0;
    }
  }

  /**
   * Ends the input and drops every row whose PID a later row also has. `duplicates`: whether the
   * caller saw a PID twice (it keeps a PidSet); without, there is nothing to search for. Returns how
   * many rows were dropped (the summary's `replaced`) and how many remain (the dataset's records).
   */
  dedupe(duplicates: boolean): { replaced: number; records: number } {
    this.db.exec('COMMIT');
    this.remaining = this.added;
    if (!duplicates) return { replaced: 0, records: this.added };
    this.db.exec('CREATE INDEX rows_pid ON rows (pid)'); // (pid, seq): seq is the rowid
    const { total, uniq } = this.db.prepare('SELECT count(*) AS total, count(DISTINCT pid) AS uniq FROM rows').get() as { total: number; uniq: number };
    if (total > uniq)
      this.db.exec('DELETE FROM rows WHERE seq < (SELECT max(later.seq) FROM rows AS later WHERE later.pid = rows.pid)');
    this.remaining = uniq;
    return { replaced: total - uniq, records: uniq };
  }

  /**
   * The final order, after dedupe(): `seqs[i]` is the input position (seq) of the record at
   * position i in (STATE, PID) order; `first` is the first record, and `runs` the others as runs of
   * at most `runLength` records of one state, each after a PID (RUN_SELECT's parameters).
   */
  order(runLength: number): { seqs: Uint32Array; first: { state: string; pid: string; record: string }; runs: Run[] } {
    const seqs = new Uint32Array(this.remaining);
    const runs: Run[] = [];
    let run: Run | undefined;
    let i = 0;
    let lastPid = '';
    // Reads the (state, pid) index alone (seq is the rowid it holds): no record is read here.
    for (const [state, pid, seq] of this.db.prepare('SELECT state, pid, seq FROM rows ORDER BY state, pid').raw().iterate() as Iterable<[string, string, number]>) {
      seqs[i++] = seq;
      if (i === 1) runs.push((run = { state, after: pid, count: 0 })); // the first record is not in a run
      else if (run!.state === state && run!.count < runLength) run!.count++;
      else runs.push((run = { state, after: run!.state === state ? lastPid : '', count: 1 }));
      lastPid = pid;
    }
    if (i !== seqs.length) throw new Error(`The staging table holds ${i} records, expected ${seqs.length}.`);
    const head = this.db.prepare('SELECT state, pid, record FROM rows ORDER BY state, pid LIMIT 1').get() as { state: string; pid: string; record: string };
    return { seqs, first: head, runs: runs.filter((r) => r.count > 0) };
  }

  /** SQL over this file attached as `source`: the texts of a Run (parameters state, after, count). */
  static readonly RUN_SELECT = 'SELECT record FROM source.rows WHERE state = ? AND pid > ? ORDER BY pid LIMIT ?';

  /** One field's values (FIELDS index) of the remaining records in (STATE, PID) order. */
  fieldValues(field: number): IterableIterator<string> {
    return this.db.prepare(`SELECT json_extract(record, '$[${field}]') FROM rows ORDER BY state, pid`).pluck().iterate() as IterableIterator<string>;
  }

  /**
   * Closes the file and deletes it in the background (a 200 MB file takes ~0.2 s to delete, which
   * can overlap with the writer's last step); the promise says when it is gone.
   */
  async disposeInBackground(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.db.close();
    await Promise.all(['', '-journal', '-wal', '-shm'].map((suffix) => rm(this.path + suffix, { force: true })));
  }

  /** Closes and deletes the file; safe to call more than once. */
  dispose(): void {
    if (this.closed) return;
    this.closed = true;
    try {
      if (this.db.open) this.db.close();
    } finally {
      for (const suffix of ['', '-journal', '-wal', '-shm']) rmSync(this.path + suffix, { force: true });
    }
  }
}
