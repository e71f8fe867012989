// The audit log: who took which records out of the app, when, into which file, and how it ended.
// Append-only (no operation edits or deletes an entry); it never holds record data, only the
// audience's definition and a count.
import type { AuditEntry, DatasetRef, Filter } from '../../shared/contract';
import type { ListControlsInput } from '../../shared/listControls';
import type { Db, Statement } from '../sqlite';

export type AuditOutcome = 'done' | 'failed' | 'cancelled';

export interface AuditRecord {
  actor: string;
  action: string;
  audience: { state: string; filters: Filter[] } & ListControlsInput;
  records: number;
  file: string;
  outcome: AuditOutcome;
  /** The dataset read or made; the current one when not given (an export names its own). */
  dataset?: DatasetRef | null;
}

interface Row extends Omit<AuditEntry, 'audience' | 'excludable' | 'dataset'> {
  audience: string;
  excludable: 0 | 1;
  dataset: string | null;
}

export const AUDIT_LIST_DEFAULT = 100;

export class AuditLog {
  private readonly stmt: Record<string, Statement>;

  constructor(
    db: Db,
    private readonly currentDataset: () => DatasetRef | null = () => null,
  ) {
    this.stmt = {
      insert: db.prepare(
        'INSERT INTO audit_log (at, actor, action, audience, records, file, outcome, dataset) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
      ),
      // excludable: the export remembers whom it wrote (src/core/lists/exportHistory.ts).
      list: db.prepare(
        `SELECT a.id, a.at, a.actor, a.action, a.audience, a.records, a.file, a.outcome, a.dataset, e.audit_id IS NOT NULL AS excludable
         FROM audit_log a LEFT JOIN export_people e ON e.audit_id = a.id ORDER BY a.id DESC LIMIT ?`,
      ),
    };
  }

  record(entry: AuditRecord): AuditEntry {
    const at = new Date().toISOString();
    const { actor, action, audience, records, file, outcome } = entry;
    const dataset = entry.dataset === undefined ? this.currentDataset() : entry.dataset;
    const id = Number(
      this.stmt.insert!.run(at, actor, action, JSON.stringify(audience), records, file, outcome, dataset ? JSON.stringify(dataset) : null)
        .lastInsertRowid,
    );
    // Whom an export wrote is remembered only after its entry exists: a new entry is never excludable yet.
    return { id, at, actor, action, audience, records, file, outcome, excludable: false, dataset };
  }

  /** Newest first. */
  list(limit = AUDIT_LIST_DEFAULT): AuditEntry[] {
    return (this.stmt.list!.all(limit) as Row[]).map((r) => ({
      ...r,
      audience: JSON.parse(r.audience) as AuditEntry['audience'],
      excludable: r.excludable === 1,
      dataset: r.dataset ? (JSON.parse(r.dataset) as DatasetRef) : null,
    }));
  }
}
