// The renderer's operations: one table of names, input schemas and output types. The IPC bridge
// (Electron) and the browser-mode HTTP bridge both carry exactly these, to the same core handlers
// (src/core/handlers), so the two transports cannot drift apart. Channel names are `domain/verb`.
import { z } from 'zod';
import { audienceRequestSchema, audienceSchema } from './audienceRequest';
import type { BackupInfo, RestorePreview, RestoreSummary } from './backupContract';
import type { ExportOutput } from './exportFields';
import type { ListControlsInput } from './listControls';
import { likeQualityRequestSchema, type LikeQuality } from './likeQuality';
import { overlapRequestSchema, type OverlapAnswer } from './overlap';
import type { ProfileAnswer } from './profile';
import type { MatchSummary, OptOutImport } from './customerFiles';

export type { BackupInfo, RestoreKey, RestoreList, RestorePreview, RestoreSummary } from './backupContract';
export type { MatchSummary, OptOutImport } from './customerFiles';
export type * from './importContract';
export type { DatasetRef } from './datasetRef';
import type { DatasetRef } from './datasetRef';
export type * from './dataSourceContract';
import type { ImportJob, ImportPick, ImportPlan } from './importContract';
import type { ClickHouseCheck, DataSourceInfo } from './dataSourceContract';

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
  /** The builder column's width in pixels, as the analyst dragged it. */
  builderWidth: z.number().int().min(200).max(1000).optional(),
});
const workspace = workspaceSchema;
// Saved audiences always store their filters, even when there are none, and keep their list controls.
const savedAudience = audienceSchema.extend({ filters: z.array(z.tuple([z.string(), z.array(z.union([z.string(), z.number()]))])) });
const id = z.strictObject({ id: z.string().min(1).max(64) });
// Files to import: paths the pick operation handed out (the core refuses any other path).
const importFiles = z.strictObject({
  files: z.array(z.string().min(1).max(4096)).min(1).max(200),
  delimiter: z.enum([',', '\t', '|']).optional(),
  // Columns the user mapped: a vendor header to the record field it fills, or '' to skip it (docs/import.md).
  columns: z.record(z.string().max(200), z.string().max(64)).optional(),
});

// The Data source setting (README "Data sources"): a ClickHouse server's address, its fallback nodes
// (other nodes of the same cluster, asked when the address does not answer), database and user, and its
// password only when typed. No operation ever answers the password (DataSourceInfo.hasPassword).
const clickhouseSource = {
  url: z.string().min(1).max(2048),
  fallbackUrls: z.array(z.string().min(1).max(2048)).max(16).optional(),
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
    // The fields written (record field names or preset names, src/shared/exportFields.ts) and how codes read.
    fields: z.array(z.string().max(64)).max(1000).optional(),
    values: z.enum(['codes', 'labels']).optional(),
    fileName: z.string().min(1).max(200).optional(),
  }),
  'export/status': z.strictObject({ id: z.string() }),
  'export/cancel': z.strictObject({ id: z.string() }),
  'keys/list': z.strictObject({}),
  'keys/create': z.strictObject({ name: z.string() }),
  'keys/revoke': z.strictObject({ id: z.string() }),
  'api/status': z.strictObject({}),
  'audiences/list': z.strictObject({}),
  // replace: the user confirmed that an audience of the same name takes this one's place (keeping its id).
  'audiences/save': savedAudience.extend({ name: z.string(), replace: z.boolean().optional() }),
  'audience/crosstab': audience.extend({ rows: z.string(), columns: z.string(), max: z.number().int().min(1).max(200).optional() }),
  // Insight (docs/insight.md): the profile of an audience, overlaps of saved sets, a lookalike model's quality.
  'audience/profile': audience.extend({ fields: z.array(z.string()).optional() }),
  'audience/overlap': overlapRequestSchema,
  'audience/likeQuality': likeQualityRequestSchema,
  'lists/pick': z.strictObject({}),
  'lists/import': z.strictObject({ file: z.string().min(1).max(4096), name: z.string() }),
  'lists/list': z.strictObject({}),
  'lists/delete': id,
  // Match and append (docs/match.md) and consumer opt-outs (docs/optouts.md): only a picked file is read.
  'match/pick': z.strictObject({}),
  'match/run': z.strictObject({
    file: z.string().min(1).max(4096),
    fields: z.array(z.string().max(100)).max(64),
    values: z.enum(['codes', 'labels']).optional(),
    keep: z.string().max(200).optional(),
  }),
  'optouts/pick': z.strictObject({}),
  'optouts/import': z.strictObject({ file: z.string().min(1).max(4096) }),
  'optouts/list': z.strictObject({}),
  'optouts/remove': id,
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
  /** Why a refused request was refused: the error answer's code, message and field (never a body, record data or a key). */
  error?: { code: string; message: string; field?: string };
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
/**
 * How many people are left after each list step (docs/list-controls.md), so that each step can say how
 * many people it removed: `filtered` by state and filters alone, `matched` after `near` too,
 * `afterContact` after callable and deliverable, `afterExclusions` after the people left out.
 */
export interface AudienceSteps {
  filtered: number;
  matched: number;
  afterContact: number;
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
  /** `output`: the fields an export wrote and how its values read, when not the whole record with codes. */
  audience: { state: string; states?: string[]; filters: Filter[]; output?: ExportOutput } & ListControlsInput;
  records: number;
  file: string;
  outcome: string;
  /** An export that finished and remembers whom it wrote: `exclude: ["export:<id>"]` leaves them out. */
  excludable: boolean;
  /** The dataset it read (export) or made (import); null for entries written before datasets were recorded. */
  dataset?: DatasetRef | null;
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
  'audience/profile': ProfileAnswer & { ms: number };
  'audience/overlap': OverlapAnswer & { ms: number };
  'audience/likeQuality': LikeQuality;
  'lists/pick': ImportPick;
  'lists/import': SuppressionListInfo;
  'lists/list': SuppressionListInfo[];
  'lists/delete': { ok: true };
  'match/pick': ImportPick;
  'match/run': MatchSummary & { path: string | null };
  'optouts/pick': ImportPick;
  'optouts/import': OptOutImport;
  'optouts/list': OptOutImport[];
  'optouts/remove': OptOutImport;
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
