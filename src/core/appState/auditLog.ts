// The audit log: who took which records out of the app, when, into which file, and how it ended.
// Append-only (no operation edits or deletes an entry); it never holds record data, only the
// audience's definition and a count.
import type { AuditEntry, Filter } from '../../shared/contract';
import type { Db, Statement } from '../sqlite';

export type AuditOutcome = 'done' | 'failed' | 'cancelled';

export interface AuditRecord {
  actor: string;
  action: string;
  audience: { state: string; filters: Filter[] };
  records: number;
  file: string;
  outcome: AuditOutcome;
}

interface Row extends Omit<AuditEntry, 'audience'> {
  audience: string;
}

export const AUDIT_LIST_DEFAULT = 100;

export class AuditLog {
  private readonly stmt: Record<string, Statement>;

  constructor(db: Db) {
    this.stmt = {
      insert: db.prepare('INSERT INTO audit_log (at, actor, action, audience, records, file, outcome) VALUES (?, ?, ?, ?, ?, ?, ?)'),
      list: db.prepare('SELECT id, at, actor, action, audience, records, file, outcome FROM audit_log ORDER BY id DESC LIMIT ?'),
    };
  }

  record(entry: AuditRecord): AuditEntry {
    const at = new Date().toISOString();
    const { actor, action, audience, records, file, outcome } = entry;
    const id = Number(this.stmt.insert!.run(at, actor, action, JSON.stringify(audience), records, file, outcome).lastInsertRowid);
    return { id, at, ...entry };
  }

  /** Newest first. */
  list(limit = AUDIT_LIST_DEFAULT): AuditEntry[] {
    return (this.stmt.list!.all(limit) as Row[]).map((r) => ({ ...r, audience: JSON.parse(r.audience) as AuditEntry['audience'] }));
  }
}
