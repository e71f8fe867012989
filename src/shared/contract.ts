// The renderer's operations: one table of names, input schemas and output types. The IPC bridge
// (Electron) and the browser-mode HTTP bridge both carry exactly these, to the same core handlers
// (src/core/handlers), so the two transports cannot drift apart. Channel names are `domain/verb`.
import { z } from 'zod';
import { audienceRequestSchema, audienceSchema } from './audienceRequest';
import type { BackupInfo, RestorePreview, RestoreSummary } from './backupContract';
import type { ListControlsInput } from './listControls';

export type { BackupInfo, RestoreKey, RestoreList, RestorePreview, RestoreSummary } from './backupContract';

// Audience inputs are the API's own schemas (audienceRequest.ts): the app and the API accept the same
// keys and report the same problems in the same words.
// The app may also ask about several states at once (`states`, docs/multi-state.md): the core runs
// the one-state operation for each and adds the answers up. The HTTP API stays one state a request.
const states = { states: z.array(z.string().max(8)).min(1).max(60).optional() };
const audience = audienceSchema.extend(states);
const page = audienceRequestSchema.extend(states);
/** What the app reopens with: the audience being built (null before a state is chosen) and the grid's columns. */
export const workspaceSchema = z.strictObject({
  audience: audience.nullable(),
  columns: z.array(z.string().max(32)).max(40).optional(),
});
const workspace = workspaceSchema;
// Saved audiences always store their filters, even when there are none, and keep their list controls.
const savedAudience = audienceSchema.extend({ filters: z.array(z.tuple([z.string(), z.array(z.union([z.string(), z.number()]))])) });
const id = z.strictObject({ id: z.string().min(1).max(64) });
// Files to import: paths the pick operation handed out (the core refuses any other path).
const importFiles = z.strictObject({
  files: z.array(z.string().min(1).max(4096)).min(1).max(200),
  delimiter: z.enum([',', '\t', '|']).optional(),
});

// The Data source setting (README "Data sources"): a ClickHouse server's address, database and user,
// and its password only when typed. No operation ever answers the password (DataSourceInfo.hasPassword).
const clickhouseSource = {
  url: z.string().min(1).max(2048),
  database: z.string().min(1).max(64),
  user: z.string().min(1).max(128),
  password: z.string().max(1024).optional(),
};

export const INPUTS = {
  'dataset/info': z.strictObject({}),
  'audience/count': audience,
  'audience/preview': page,
  'audience/search': page,
  'audience/breakdown': audience.extend({ field: z.string(), max: z.number().int().min(1).max(1000).optional() }),
  'export/start': audience.extend({
    format: z.enum(['csv', 'jsonl']),
    // A CSV's header: field names (default), their labels from the data dictionary, or both rows.
    header: z.enum(['names', 'labels', 'both']).optional(),
    fileName: z.string().min(1).max(200).optional(),
  }),
  'export/status': z.strictObject({ id: z.string() }),
  'export/cancel': z.strictObject({ id: z.string() }),
  'keys/list': z.strictObject({}),
  'keys/create': z.strictObject({ name: z.string() }),
  'keys/revoke': z.strictObject({ id: z.string() }),
  'api/status': z.strictObject({}),
  'audiences/list': z.strictObject({}),
  'audiences/save': savedAudience.extend({ name: z.string() }),
  'audience/crosstab': audience.extend({ rows: z.string(), columns: z.string(), max: z.number().int().min(1).max(200).optional() }),
  'lists/pick': z.strictObject({}),
  'lists/import': z.strictObject({ file: z.string().min(1).max(4096), name: z.string() }),
  'lists/list': z.strictObject({}),
  'lists/delete': id,
  'audiences/rename': z.strictObject({ id: z.number().int(), name: z.string() }),
  'audiences/delete': z.strictObject({ id: z.number().int() }),
  'audit/list': z.strictObject({ limit: z.number().int().min(1).max(1000).optional() }),
  'import/pick': z.strictObject({}),
  'import/inspect': importFiles,
  'import/start': importFiles,
  'import/status': z.strictObject({ id: z.string() }),
  'import/cancel': z.strictObject({ id: z.string() }),
  'import/current': z.strictObject({}),
  // "Importing asks first": a finished import waits in phase 'confirm' until the user switches or keeps the current dataset.
  'import/confirm': z.strictObject({ id: z.string(), switch: z.boolean() }),
  // Dataset history (README "Nothing lost"): ids come from datasets/list, never paths.
  'datasets/list': z.strictObject({}),
  'datasets/switch': z.strictObject({ id: z.string().min(1).max(400) }),
  'datasets/delete': z.strictObject({ id: z.string().min(1).max(400) }),
  'datasets/keep': z.strictObject({ keep: z.number().int().min(0).max(50) }),
  // App-state backups live in <home>/backups; preview and restore name one of them (never a path).
  // A restore is shown first (backup/preview) and runs only with the fingerprint the preview answered.
  'backup/list': z.strictObject({}),
  'backup/create': z.strictObject({}),
  'backup/preview': z.strictObject({ name: z.string().min(1).max(200) }),
  'backup/restore': z.strictObject({ name: z.string().min(1).max(200), fingerprint: z.string().regex(/^[0-9a-f]{64}$/) }),
  // Things the user must be told that happened at start-up (a damaged app state set aside).
  'app/notices': z.strictObject({}),
  // The working audience, kept in app state so a reload or a restart reopens it (docs/workspace.md).
  'workspace/get': z.strictObject({}),
  'workspace/set': workspace,
  // The data source: what answers (bundled dataset, a dataset file via datasets/switch, or ClickHouse).
  'datasource/get': z.strictObject({}),
  'datasource/check': z.strictObject(clickhouseSource),
  'datasource/use': z.discriminatedUnion('kind', [
    z.strictObject({ kind: z.literal('bundled') }),
    z.strictObject({ kind: z.literal('clickhouse'), ...clickhouseSource }),
  ]),
  'datasource/forget-password': z.strictObject({}),
} as const;

export type OperationName = keyof typeof INPUTS;
export type Workspace = z.infer<typeof workspaceSchema>;
export const OPERATION_NAMES = Object.keys(INPUTS) as OperationName[];
export type InputOf<K extends OperationName> = z.infer<(typeof INPUTS)[K]>;

export type FilterValue = string | number;
export type Filter = [string, FilterValue[]];
export type FieldValue = string | number;

export interface StateCount {
  state: string;
  count: number;
}
export interface ValueCount {
  value: FieldValue;
  count: number;
}
export interface PreviewRecord {
  pid: string;
  fname: string;
  lname: string;
  city: string;
  state: string;
}
export interface ExportJob {
  /** Empty when nothing was started (the user dismissed the save dialog); status is then 'cancelled'. */
  id: string;
  status: 'running' | 'done' | 'failed' | 'cancelled';
  format: 'csv' | 'jsonl';
  path: string;
  written: number;
  total: number;
  recordsPerSecond: number;
  secondsLeft: number | null;
  error?: string;
}
/** One line of the API panel's request log: never a body, record data or a key. */
export interface RequestLogEntry {
  /** Counts up from 1 in the server's lifetime: a row's stable identity in the panel's list. */
  seq: number;
  at: string;
  keyName: string | null;
  operation: string;
  status: number;
  ms: number;
}
export interface ApiKeyInfo {
  id: string;
  name: string;
  prefix: string;
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
}
/**
 * How many people are left after each step of extensions.md's order: state and filters; then
 * contact and exclude; then households; then sample (= total).
 */
export interface AudienceSteps {
  matched: number;
  afterExclusions: number;
  afterHouseholds: number;
  total: number;
}

/** Counts of an audience by two fields at once: counts[r][c] people hold rowValues[r] and columnValues[c]. */
export interface CrossTab {
  rows: string;
  columns: string;
  rowValues: FieldValue[];
  columnValues: FieldValue[];
  counts: number[][];
  /** The audience's size; people whose values fell outside the kept rows or columns are in it but not in counts. */
  total: number;
  ms: number;
}

/** An imported suppression list: what it holds is kept only as keyed hashes (never the values). */
export interface SuppressionListInfo {
  id: string;
  name: string;
  createdAt: string;
  /** Data rows in the file (its header not counted). */
  rows: number;
  /** Values kept, by kind. */
  pids: number;
  phones: number;
  addresses: number;
  /** Rows that were not a PID, phone or address: how many, and the first few by line and reason (never the row). */
  rejected: number;
  rejects: Array<{ line: number; reason: string }>;
  /** People of the current dataset the list names; null when no dataset is open. */
  matched: number | null;
}

/** Which dataset something was made on: saved audiences and audit entries keep it. */
export interface DatasetRef {
  /** The file's name and the time it was written: another file, or the same name rewritten, is another dataset. */
  id: string;
  name: string;
  records: number;
}
/** One dataset of the history (the Datasets panel). */
export interface DatasetEntry extends DatasetRef {
  path: string;
  createdAt: string | null;
  /** The vendor files an import read ([] for a generated or bundled dataset). */
  sources: string[];
  bytes: number;
  active: boolean;
  /** Made by the app in <home>/datasets (deleting removes the file); others are only forgotten. */
  managed: boolean;
  /** Active, or an export still reads it: it cannot be deleted now. */
  inUse: boolean;
  addedAt: string;
  lastActiveAt: string | null;
}
export interface DatasetList {
  datasets: DatasetEntry[];
  /** Previous datasets the app keeps besides the active one; older ones it made are deleted. */
  keep: number;
}

export interface SavedAudience {
  id: number;
  name: string;
  state: string;
  /** The list controls saved with it, as request keys (only those that do something). */
  controls: ListControlsInput;
  filters: Filter[];
  createdAt: string;
  updatedAt: string;
  /** The dataset it was saved on; null for audiences saved before datasets were recorded. */
  dataset?: DatasetRef | null;
}
export interface AuditEntry {
  id: number;
  at: string;
  actor: string;
  action: string;
  /** states: every state of a several-state export (state is then the first). */
  audience: { state: string; states?: string[]; filters: Filter[] } & ListControlsInput;
  records: number;
  file: string;
  outcome: string;
  /** An export that finished and remembers whom it wrote: `exclude: ["export:<id>"]` leaves them out. */
  excludable: boolean;
  /** The dataset it read (export) or made (import); null for entries written before datasets were recorded. */
  dataset?: DatasetRef | null;
}

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

/** The Data source screen: what answers now, what the next start opens, and the ClickHouse server kept (never its password). */
export interface DataSourceInfo {
  /** What answers now: the bundled dataset, another dataset file, a ClickHouse server, or nothing yet. */
  current: 'bundled' | 'dataset' | 'clickhouse' | 'none';
  /** What the next start opens: a dataset file (the last one used, else the bundled one) or the ClickHouse server below. */
  stored: 'embedded' | 'clickhouse';
  /** The dataset (or ClickHouse table) answering now. */
  dataset: DatasetRef | null;
  bundledAvailable: boolean;
  /** The ClickHouse server last used; hasPassword says a password is stored for this address and user. */
  clickhouse: { url: string; database: string; user: string; hasPassword: boolean } | null;
  /** Why a stored password cannot be read back (another computer's keychain, a damaged file); null when it can. */
  passwordError: string | null;
  /** Where the password is kept (the OS keychain in the desktop app, an owner-only file in browser mode). */
  secretStore: string;
  /** Why the stored ClickHouse source did not open at start; null otherwise. */
  startError: string | null;
}
/** What Test connection found, step by step; `error` names the first step that failed (never the password). */
export interface ClickHouseCheck {
  /** scheme://host:port only. */
  address: string;
  database: string;
  reachable: boolean;
  version: string | null;
  /** The user and password were accepted. */
  signedIn: boolean;
  databaseFound: boolean;
  /** The loaded dataset's tables (people and people_meta) are there. */
  tableFound: boolean;
  /** From people_meta: records loaded, when, and from which dataset file. */
  records: number | null;
  loadedAt: string | null;
  source: string | null;
  /** Whether the user is read-only (readonly != 0); a writing user gets a warning. */
  readOnly: boolean | null;
  ms: number;
  error: string | null;
  warnings: string[];
}

export interface Outputs {
  'dataset/info': { path: string; records: number; states: StateCount[]; createdAt: string | null };
  /** byState: each asked state's total (one entry for a one-state audience), in state order; the core always sends it. */
  'audience/count': { total: number; ms: number; steps: AudienceSteps; byState?: StateCount[] };
  'audience/preview': { total: number; results: PreviewRecord[]; ms: number };
  'audience/search': { total: number; limit: number; skip: number; results: Array<Record<string, FieldValue>> };
  'audience/breakdown': { field: string; total: number; values: ValueCount[]; ms: number };
  'export/start': ExportJob;
  'export/status': ExportJob;
  'export/cancel': ExportJob;
  'keys/list': ApiKeyInfo[];
  'keys/create': { info: ApiKeyInfo; key: string };
  'keys/revoke': { ok: true };
  'api/status': { url: string | null; running: boolean; recent: RequestLogEntry[] };
  'audiences/list': SavedAudience[];
  'audiences/save': SavedAudience;
  'audience/crosstab': CrossTab;
  'lists/pick': ImportPick;
  'lists/import': SuppressionListInfo;
  'lists/list': SuppressionListInfo[];
  'lists/delete': { ok: true };
  'audiences/rename': SavedAudience;
  'audiences/delete': { ok: true };
  'audit/list': AuditEntry[];
  'import/pick': ImportPick;
  'import/inspect': ImportPlan;
  'import/start': ImportJob;
  'import/status': ImportJob;
  'import/cancel': ImportJob;
  'import/current': { job: ImportJob | null };
  'import/confirm': ImportJob;
  'datasets/list': DatasetList;
  'datasets/switch': DatasetEntry;
  'datasets/delete': { ok: true };
  'datasets/keep': DatasetList;
  'backup/list': { folder: string; backups: BackupInfo[] };
  'backup/create': BackupInfo;
  'backup/preview': RestorePreview;
  'backup/restore': RestoreSummary;
  'app/notices': { notices: string[] };
  /** The workspace as last set; audience null when none was kept (or what was kept no longer parses). */
  'workspace/get': Workspace;
  'workspace/set': { ok: true };
  'datasource/get': DataSourceInfo;
  'datasource/check': ClickHouseCheck;
  'datasource/use': DataSourceInfo;
  'datasource/forget-password': DataSourceInfo;
}

export type OutputOf<K extends OperationName> = Outputs[K];

/** What a transport answers: a result, or the one error shape of decisions.md. */
export type Envelope<T> = { ok: true; value: T } | { ok: false; error: { code: string; message: string; field?: string } };

/** The renderer's whole view of the back end: window.audienceDesk in Electron and in the browser. */
export type AudienceDeskApi = {
  [K in OperationName]: (input: InputOf<K>) => Promise<OutputOf<K>>;
};
