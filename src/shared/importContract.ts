// What the import operations answer the renderer (contract.ts): the files picked, the plan before
// anything is written, and the job while it runs and when it ends.
import type { DatasetRef } from './datasetRef';

export type ImportDelimiter = ',' | '\t' | '|';

/** What the user picked: in Electron the open dialog's files, in browser mode the inbox folder's. */
export interface ImportPick {
  files: string[];
  /** Browser mode: the folder whose files are offered (put vendor files there); null in Electron. */
  inbox: string | null;
}
/** One file as the import would read it, before anything is written. */
export interface ImportFilePlan {
  path: string;
  name: string;
  bytes: number;
  gzip: boolean;
  delimiter: ImportDelimiter | null;
  /** Each header column in file order and the record field it fills (null: not a field, ignored). */
  columns: Array<{ header: string; field: string | null }>;
  /** How many record fields no column fills: absent data (`""` or 0) in every record of this file. */
  absentFields: number;
  /** Why the file cannot be imported as it is (no PID column, undecidable delimiter, …); null when it can. */
  error: string | null;
}
export interface ImportPlan {
  files: ImportFilePlan[];
  /** True when every file can be imported. */
  ready: boolean;
}
/**
 * Every row of an import accounted for: read = imported + rejected. `replaced` counts imported rows
 * whose PID an earlier imported row of the same import already had: the later row replaces it, so
 * the dataset holds `records` = imported - replaced (one per distinct PID). Rejected rows neither
 * replace nor are replaced. The CLI prints these; the app shows them.
 */
export interface ImportCounts {
  read: number;
  imported: number;
  rejected: number;
  replaced: number;
  records: number;
  seconds: number;
}
export interface ImportResult extends ImportCounts {
  /** The new dataset's file (the app's current one once switched to). */
  dataset: string;
  /** Its id in the dataset history. */
  datasetId?: string;
  rejectsPath: string;
}
export interface ImportJob {
  id: string;
  status: 'running' | 'done' | 'failed' | 'cancelled';
  /**
   * reading: parsing and checking rows; writing: building the dataset; confirm: done, waiting for the
   * user to switch to it or keep the current one (import/confirm); switching: opening it.
   */
  phase: 'reading' | 'writing' | 'confirm' | 'switching' | 'finished';
  files: string[];
  rowsRead: number;
  rowsWritten: number;
  bytesRead: number;
  totalBytes: number;
  /** Of the current phase, 0-100. */
  percent: number;
  rowsPerSecond: number;
  /** Of the current phase; null when not yet known. */
  secondsLeft: number | null;
  /** Things a person should know that did not stop the import (unknown columns ignored). */
  notices: string[];
  result: ImportResult | null;
  /** The rejects file, once written (also when no row could be imported, to say why). */
  rejectsPath: string | null;
  /** The dataset in use when the import asked to switch (phase confirm); null before, or when none was open. */
  current?: DatasetRef | null;
  /** Whether the user switched to the new dataset: null until decided. */
  switched?: boolean | null;
  error?: string;
}
