// The composition root: one Core per process, shared by the HTTP server, the IPC bridge and the CLI.
// No globals: everything the transports need hangs off this object.
import { AppError } from '../shared/errors';
import { openAppStateOrSetAside } from './appState/appStateRecovery';
import type { BackupInfo, DatasetRef } from '../shared/contract';
import { createBackup } from './appState/backup';
import { stageRestore, type StagedRestore } from './appState/restore';
import { DatasetHistory } from './datasets/datasetHistory';
import { factsFromMeta, readDatasetFacts } from './datasets/datasetRef';
import { AudienceService } from './audience/audienceService';
import type { AudienceEngine } from './audience/engine';
import { AuditLog } from './appState/auditLog';
import { SavedAudienceStore } from './appState/savedAudiences';
import { ExportJobs } from './export/exportJobs';
import { ExportHistory } from './lists/exportHistory';
import { SuppressionLists } from './lists/suppressionLists';
import { ImportJobs } from './import/importJobs';
import { defaultHomeDir } from './appState/homeDir';
import { Dataset } from './dataset/dataset';
import { KeyStore } from './keys/keyStore';
import { DEFAULT_QUERY_BUDGET_MS, EmbeddedEngine } from './query/embeddedEngine';
import type { Db } from './sqlite';
import { DataSources } from './dataSource/dataSources';
import { FileSecretStore, credentialsFilePath } from './dataSource/fileSecretStore';
import type { SecretStore } from './dataSource/secretStore';

export interface CoreOptions {
  /** Where app state lives; the OS's per-user app-data folder by default. */
  homeDir?: string;
  /** The dataset to open at once; without it the core answers `unavailable` until one is opened. */
  datasetPath?: string;
  /** Milliseconds one preview or search may take before it answers `unavailable` (DEFAULT_QUERY_BUDGET_MS). */
  queryBudgetMs?: number;
  /** An engine that answers instead of a dataset file (a ClickHouse server: src/core/clickhouse); the core closes it. */
  engine?: AudienceEngine;
  /** The bundled sample dataset, which the Data source setting offers (the desktop app's resources, or resources/). */
  bundledDatasetPath?: string;
  /**
   * Where the Data source setting keeps a ClickHouse password: the desktop app passes the OS keychain
   * (src/main/safeStorageSecretStore.ts); by default an owner-only file in the home folder (browser mode, CLI).
   */
  secretStore?: (appState: Db) => SecretStore;
}

export class Core {
  readonly homeDir: string;
  readonly appState: Db;
  readonly keys: KeyStore;
  readonly savedAudiences: SavedAudienceStore;
  readonly auditLog: AuditLog;
  readonly exportJobs: ExportJobs;
  /** Imported suppression lists (`exclude: ["list:<id>"]`). */
  readonly lists: SuppressionLists;
  /** Whom each finished export wrote (`exclude: ["export:<audit id>"]`). */
  readonly exportHistory: ExportHistory;
  readonly importJobs: ImportJobs;
  /** Datasets used or made, to switch back to (README "Nothing lost"). */
  readonly datasets: DatasetHistory;
  /** What the user must be told about start-up (a damaged app state set aside): CLI stderr, the app's notice. */
  readonly notices: string[];
  /** Counts, previews, searches, breakdowns and exports: what every transport calls. */
  readonly audiences: AudienceService;
  /** The Data source setting: bundled dataset, a dataset file or a ClickHouse server (README "Data sources"). */
  readonly dataSources: DataSources;
  private current: EmbeddedEngine | null = null;
  /** CoreOptions.engine: when set, every query goes to it and no dataset file is opened. */
  private external: AudienceEngine | null = null;
  private currentRef: DatasetRef | null = null;
  /** Previous datasets still open because an export reads them; never pruned or deleted meanwhile. */
  private readonly draining = new Set<string>();
  private readonly refs = new WeakMap<object, DatasetRef>();
  private readonly datasetListeners: Array<(path: string) => void> = [];
  private readonly queryBudgetMs: number;
  private closing: Promise<void> | null = null;

  constructor(options: CoreOptions = {}) {
    this.homeDir = options.homeDir ?? defaultHomeDir();
    this.queryBudgetMs = options.queryBudgetMs ?? DEFAULT_QUERY_BUDGET_MS;
    const opened = openAppStateOrSetAside(this.homeDir);
    this.appState = opened.db;
    this.notices = opened.notices;
    this.datasets = new DatasetHistory(this.appState, this.homeDir, {
      active: () => this.current?.dataset.path ?? null,
      inUse: () => new Set([...this.draining, ...this.importJobs.pendingDatasets()]),
    });
    this.keys = new KeyStore(this.appState);
    this.savedAudiences = new SavedAudienceStore(this.appState, () => this.currentRef);
    this.auditLog = new AuditLog(this.appState, () => this.currentRef);
    this.lists = new SuppressionLists(this.appState, () => this.current ?? this.external);
    this.exportHistory = new ExportHistory(this.appState);
    this.exportJobs = new ExportJobs(() => this.engine, this.auditLog, this.exportHistory, { datasetOf: (e) => this.datasetRefOf(e) });
    this.audiences = new AudienceService(() => this.engine, this.exportJobs, {
      savedAudience: (id) => this.savedAudiences.get(id),
      list: (id) => this.lists.matcher(id),
      export: (id) => this.exportHistory.matcher(id),
    });
    this.importJobs = new ImportJobs({
      homeDir: this.homeDir,
      audit: this.auditLog,
      currentDataset: () => this.current?.dataset.path ?? null,
      switchTo: (path) => this.switchDataset(path),
      noteDataset: (path) => this.datasets.note(path, readDatasetFacts(path), false),
      currentRef: () => this.currentRef,
      prune: () => this.datasets.prune(),
    });
    this.external = options.engine ?? null;
    if (options.datasetPath && !this.external) this.openDataset(options.datasetPath);
    // After the first dataset opened: opening the one a caller named is not a change of the stored choice.
    const secrets = options.secretStore?.(this.appState) ?? new FileSecretStore(credentialsFilePath(this.homeDir));
    this.dataSources = new DataSources(this, secrets, options.bundledDatasetPath ?? null);
  }

  /** Opens a dataset and makes it current; the previous one is closed only once the new one opened. */
  openDataset(path: string): Dataset {
    return this.switch(path).dataset;
  }

  /**
   * openDataset for a dataset replacing the one in use while the app runs (an import): resolves with
   * the previous dataset's path once it is closed, which waits for exports still reading from it.
   */
  switchDataset(path: string): Promise<string | null> {
    return this.switch(path).previousClosed;
  }

  /** Called with the new dataset's path whenever one becomes current (the desktop app remembers it). */
  onDatasetOpened(listener: (path: string) => void): void {
    this.datasetListeners.push(listener);
  }

  private switch(path: string): { dataset: Dataset; previousClosed: Promise<string | null> } {
    const dataset = Dataset.open(path);
    const previous = this.current;
    // A ClickHouse server answering until now steps aside the same way: exports reading it finish first.
    this.retireExternal();
    this.current = new EmbeddedEngine(dataset, { queryBudgetMs: this.queryBudgetMs });
    this.currentRef = this.datasets.note(path, factsFromMeta(dataset.meta), true);
    this.refs.set(this.current, this.currentRef);
    for (const listener of this.datasetListeners) listener(path);
    // Queries answer from the new dataset from now on; an export still reading the old one keeps it open.
    return { dataset, previousClosed: previous ? this.retireDataset(previous) : Promise.resolve(null) };
  }

  /** Closes a dataset no query goes to any more once exports reading it finish; resolves with its path. */
  private retireDataset(previous: EmbeddedEngine): Promise<string> {
    this.draining.add(previous.dataset.path);
    return this.exportJobs.idle(previous).then(() => {
      previous.dataset.close();
      this.draining.delete(previous.dataset.path);
      // Older datasets beyond the history's size go once nothing reads them.
      this.pruneQuietly();
      return previous.dataset.path;
    });
  }

  /**
   * Makes another engine (a ClickHouse server) answer every query from now on, as a dataset switch
   * does: the dataset file in use closes once exports reading it finish. `ref` names its data for
   * saved audiences and the audit log.
   */
  useEngine(engine: AudienceEngine, ref: DatasetRef | null): void {
    const previous = this.current;
    if (this.external !== engine) this.retireExternal();
    this.external = engine;
    this.current = null;
    this.currentRef = ref;
    if (ref) this.refs.set(engine, ref);
    if (previous) void this.retireDataset(previous);
  }

  /** Closes the external engine once exports reading it finish; queries stop going to it at once. */
  private retireExternal(): void {
    const external = this.external;
    if (!external) return;
    this.external = null;
    void this.exportJobs.idle(external).then(() => external.close());
  }

  /** True while an engine other than a dataset file (ClickHouse) answers. */
  get usesEngine(): boolean {
    return this.external !== null;
  }

  /** The dataset file answering now; null while none is open or ClickHouse answers (useEngine clears it). */
  get activeDatasetPath(): string | null {
    return this.current?.dataset.path ?? null;
  }

  /**
   * Makes a dataset of the history current (the Datasets panel): queries move at once; the previous
   * one stays open until exports reading it finish. The history never hands out a path it did not note.
   */
  switchToDataset(id: string): ReturnType<DatasetHistory['get']> {
    const entry = this.datasets.get(id);
    if (entry.active) return entry;
    if (this.importJobs.running())
      throw new AppError('invalid_request', 'An import is running; switch datasets once it has finished.', 'id');
    void this.switchDataset(entry.path);
    return this.datasets.get(id);
  }

  /** The dataset queries answer from now, as saved audiences and audit entries record it. */
  get datasetRef(): DatasetRef | null {
    return this.currentRef;
  }

  /** The dataset an engine reads (an export's, which may no longer be the current one). */
  datasetRefOf(engine: object): DatasetRef | null {
    return this.refs.get(engine) ?? null;
  }

  /** Writes a backup of app state to `out` (atomically; SECURITY.md "Backups" says what it holds). */
  backup(out: string): BackupInfo {
    return createBackup(this.appState, out);
  }

  /**
   * A backup copied, checked exactly and shown (its `preview`) before anything changes; its apply()
   * replaces app state in one transaction and reloads what is cached of it. discard() it whatever happens.
   */
  stageRestore(file: string): StagedRestore {
    return stageRestore(this.appState, this.homeDir, file, () => this.lists.reloaded());
  }

  private pruneQuietly(): void {
    try {
      this.datasets.prune();
    } catch (e) {
      // At shutdown app state may be closed already; pruning waits for the next switch then.
      if (!this.closing) console.error('Pruning the dataset history failed:', e);
    }
  }

  /** Closes the current dataset; until another is opened the core answers `unavailable` (on shutdown). */
  closeDataset(): void {
    this.external?.close();
    this.external = null;
    this.current?.dataset.close();
    this.current = null;
    this.currentRef = null;
  }

  /** The engine of the current dataset; `unavailable` until one is open. */
  get engine(): AudienceEngine {
    if (this.external) return this.external;
    if (!this.current) throw new AppError('unavailable', 'No dataset is open yet; try again in a moment.');
    return this.current;
  }

  get hasDataset(): boolean {
    return this.current !== null || this.external !== null;
  }

  /**
   * The one shutdown (desktop app, `serve`, tests): stops running exports and imports and waits for
   * them, so their temporary files are gone and their audit entries written, then closes everything.
   */
  shutdown(): Promise<void> {
    return (this.closing ??= (async () => {
      await Promise.all([this.exportJobs.cancelAll(), this.importJobs.cancelAll()]);
      this.closeDataset();
      this.appState.close();
    })());
  }
}

export function createCore(options: CoreOptions = {}): Core {
  return new Core(options);
}
