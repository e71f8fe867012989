// Whom each finished export wrote, so that `exclude: ["export:<auditId>"]` leaves out "everyone we
// already sent". Kept in app state under the export's audit entry: its people's PIDs, 16 bytes each
// (their 32 hexadecimal characters packed), ascending, in one blob; no other record data. A matcher
// finds a PID by binary search in that blob, so a million exported people cost 16 MB, not a Set.
import type { RecordMatcher } from '../audience/contract/engine';
import type { Db, Statement } from '../sqlite';

const PID_BYTES = 16;
const PID = /^[0-9A-F]{32}$/;

/**
 * PIDs packed as they arrive (an export's records, in PID order), without keeping a string each.
 * A PID that is not 32 upper-case hexadecimal characters cannot be packed and is refused.
 */
export class PackedPids {
  private bytes: Buffer;
  private n = 0;

  constructor(expected = 1024) {
    this.bytes = Buffer.alloc(Math.max(1, expected) * PID_BYTES);
  }

  get count(): number {
    return this.n;
  }

  add(pid: string): void {
    if (!PID.test(pid)) throw new Error('A PID is 32 upper-case hexadecimal characters.');
    if ((this.n + 1) * PID_BYTES > this.bytes.length) {
      const bigger = Buffer.alloc(this.bytes.length * 2);
      this.bytes.copy(bigger);
      this.bytes = bigger;
    }
    this.bytes.write(pid, this.n * PID_BYTES, PID_BYTES, 'hex');
    this.n++;
  }

  /** Adds PIDs already packed (another export's blob). */
  addPacked(blob: Buffer): void {
    const count = blob.length / PID_BYTES;
    if (!Number.isInteger(count)) throw new Error('Packed PIDs are 16 bytes each.');
    if ((this.n + count) * PID_BYTES > this.bytes.length) {
      const bigger = Buffer.alloc(Math.max(this.bytes.length * 2, (this.n + count) * PID_BYTES));
      this.bytes.copy(bigger);
      this.bytes = bigger;
    }
    blob.copy(this.bytes, this.n * PID_BYTES);
    this.n += count;
  }

  /** Adds the PID of a stored record (the JSON array of its values, PID first). */
  addRecord(text: string): void {
    // '["' + 32 characters + '"': the PID is the first value of every stored record.
    if (text.charCodeAt(0) !== 91 || text.charCodeAt(1) !== 34 || text.charCodeAt(34) !== 34) throw new Error('Malformed stored record.');
    this.add(text.slice(2, 34));
  }

  /** The PIDs packed, ascending, each once. */
  sorted(): Buffer {
    const used = this.bytes.subarray(0, this.n * PID_BYTES);
    let ascending = true;
    for (let k = 1; k < this.n && ascending; k++) ascending = compareAt(used, k - 1, used, k) < 0;
    if (ascending) return Buffer.from(used);
    const keys: Buffer[] = [];
    for (let k = 0; k < this.n; k++) keys.push(used.subarray(k * PID_BYTES, (k + 1) * PID_BYTES));
    keys.sort(Buffer.compare);
    const unique = keys.filter((b, k) => k === 0 || !b.equals(keys[k - 1]!));
    return Buffer.concat(unique);
  }
}

function compareAt(a: Buffer, i: number, b: Buffer, j: number): number {
  return a.compare(b, j * PID_BYTES, (j + 1) * PID_BYTES, i * PID_BYTES, (i + 1) * PID_BYTES);
}

export class ExportHistory {
  private readonly stmt: Record<string, Statement>;

  constructor(db: Db) {
    this.stmt = {
      insert: db.prepare('INSERT OR REPLACE INTO export_people (audit_id, people, pids) VALUES (?, ?, ?)'),
      has: db.prepare('SELECT 1 FROM export_people WHERE audit_id = ?').pluck(),
      pids: db.prepare('SELECT pids FROM export_people WHERE audit_id = ?').pluck(),
      // Every export finished at or after a moment: audit entries are written when an export ends.
      since: db.prepare(
        'SELECT e.audit_id AS id, e.pids FROM export_people e JOIN audit_log a ON a.id = e.audit_id WHERE a.at >= ? ORDER BY e.audit_id',
      ),
    };
  }

  /** Remembers whom the export of this audit entry wrote. */
  remember(auditId: number, pids: readonly string[] | PackedPids): void {
    let packed: PackedPids;
    if (pids instanceof PackedPids) packed = pids;
    else {
      packed = new PackedPids(pids.length);
      for (const pid of pids) packed.add(pid.toUpperCase());
    }
    const blob = packed.sorted();
    this.stmt.insert!.run(auditId, blob.length / PID_BYTES, blob);
  }

  has(auditId: number): boolean {
    return this.stmt.has!.get(auditId) !== undefined;
  }

  /** The people the export of this audit entry wrote; undefined when it remembers none (unknown, failed, older). */
  matcher(auditId: number | string): RecordMatcher | undefined {
    if (typeof auditId === 'string' && !/^\d{1,15}$/.test(auditId)) return undefined;
    const blob = this.stmt.pids!.get(Number(auditId)) as Buffer | undefined;
    if (blob === undefined) return undefined;
    return packedMatcher(`export:${Number(auditId)}`, blob);
  }

  /**
   * The people of every export finished on or after `day` (YYYY-MM-DD, from local midnight of the
   * machine): `exclude: ["exports-since:<day>"]`. None finished then names nobody. The key names the
   * exports it holds, so an export finished later makes a new key (and a fresh count).
   */
  exportsSince(day: string): RecordMatcher {
    const [y, m, d] = day.split('-').map(Number) as [number, number, number];
    const from = new Date(y, m - 1, d).toISOString();
    const rows = this.stmt.since!.all(from) as Array<{ id: number; pids: Buffer }>;
    const all = new PackedPids(rows.reduce((n, r) => n + r.pids.length / PID_BYTES, 0));
    for (const r of rows) all.addPacked(r.pids);
    return packedMatcher(`exports-since:${day}@${rows.map((r) => r.id).join(',')}`, all.sorted());
  }
}

/** A matcher of the PIDs packed ascending in `blob`, found by binary search. */
function packedMatcher(key: string, blob: Buffer): RecordMatcher {
  const n = blob.length / PID_BYTES;
  const probe = Buffer.alloc(PID_BYTES);
  return {
    key,
    fields: ['PID'],
    only: {
      field: 'PID',
      *values() {
        for (let k = 0; k < n; k++) yield blob.toString('hex', k * PID_BYTES, (k + 1) * PID_BYTES).toUpperCase();
      },
    },
    matches([pid]) {
      if (typeof pid !== 'string' || !PID.test(pid)) return false;
      probe.write(pid, 0, PID_BYTES, 'hex');
      let lo = 0;
      let hi = n - 1;
      while (lo <= hi) {
        const mid = (lo + hi) >>> 1;
        const c = blob.compare(probe, 0, PID_BYTES, mid * PID_BYTES, (mid + 1) * PID_BYTES);
        if (c === 0) return true;
        if (c < 0) lo = mid + 1;
        else hi = mid - 1;
      }
      return false;
    },
  };
}
