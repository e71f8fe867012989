// The composition root: one Core per process, shared by the HTTP server, the IPC bridge and the CLI.
// No globals: everything the transports need hangs off this object.
import { join } from 'node:path';
import { AppError } from '../shared/errors';
import { openAppStateOrSetAside } from './appState/appStateRecovery';
import type { BackupInfo, DatasetRef } from '../shared/contract';
import { createBackup } from './appState/backup';
import { stageRestore, type StagedRestore } from './appState/restore';
import { DatasetHistory } from './datasets/datasetHistory';
import { factsFromMeta, readDatasetFacts } from './datasets/datasetRef';
import { AudienceService } from './audience/audienceService';
import type { AudienceEngine } from './audience/contract/engine';
import { AuditLog } from './appState/auditLog';
import { SavedAudienceStore } from './appState/savedAudiences';
import { ExportJobs } from './export/exportJobs';
import { ExportHistory } from './lists/exportHistory';
import { SuppressionLists } from './lists/suppressionLists';
import { MatchService } from './match/matchService';
import { ConsumerOptOuts } from './optouts/consumerOptOuts';
import { ImportJobs } from './import/importJobs';
import { defaultHomeDir } from './appState/homeDir';
import { VERIFIED_DATASETS_FILE, VerifiedFiles } from './dataset/verify/verifiedFiles';
import type { Dataset } from './dataset/read/dataset';
import { KeyStore } from './keys/keyStore';
import { DEFAULT_QUERY_BUDGET_MS } from './audience/contract/queryDefaults';
import { ActiveEngine } from './activeEngine';
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
  /** Match and append: customer files matched against the current dataset (docs/match.md). */
  readonly match: MatchService;
  /** Consumer opt-outs: people no operation ever shows again (docs/optouts.md). */
  readonly optOuts: ConsumerOptOuts;
  readonly importJobs: ImportJobs;
  /** Datasets used or made, to switch back to (README "Nothing lost"). */
  readonly datasets: DatasetHistory;
  /** What the user must be told about start-up (a damaged app state set aside): CLI stderr, the app's notice. */
  readonly notices: string[];
  /** Counts, previews, searches, breakdowns and exports: what every transport calls. */
  readonly audiences: AudienceService;
  /** The Data source setting: bundled dataset, a dataset file or a ClickHouse server (README "Data sources"). */
  readonly dataSources: DataSources;
  /** Which engine answers, and the hand-over when that changes. */
  private readonly engines: ActiveEngine;
  private closing: Promise<void> | null = null;

  constructor(options: CoreOptions = {}) {
    this.homeDir = options.homeDir ?? defaultHomeDir();
    this.engines = new ActiveEngine({
      queryBudgetMs: options.queryBudgetMs ?? DEFAULT_QUERY_BUDGET_MS,
      // A dataset file found sound is not verified again on the next start, until it changes.
      verifiedFiles: new VerifiedFiles(join(this.homeDir, VERIFIED_DATASETS_FILE)),
      noteCurrent: (dataset) => this.datasets.note(dataset.path, factsFromMeta(dataset.meta), true),
      idle: (engine) => this.exportJobs.idle(engine),
      // Older datasets beyond the history's size go once nothing reads them.
      retired: () => this.pruneQuietly(),
    });
    const opened = openAppStateOrSetAside(this.homeDir);
    this.appState = opened.db;
    this.notices = opened.notices;
    this.datasets = new DatasetHistory(this.appState, this.homeDir, {
      active: () => this.engines.datasetPath,
      inUse: () => new Set([...this.engines.draining, ...this.importJobs.pendingDatasets()]),
    });
    this.keys = new KeyStore(this.appState);
    this.savedAudiences = new SavedAudienceStore(this.appState, () => this.engines.ref);
    this.auditLog = new AuditLog(this.appState, () => this.engines.ref);
    this.lists = new SuppressionLists(this.appState, () => this.engines.engineOrNull);
    this.exportHistory = new ExportHistory(this.appState);
    this.optOuts = new ConsumerOptOuts(this.appState, () => this.engines.engineOrNull);
    this.match = new MatchService(
      () => this.engines.engineOrNull,
      this.lists,
      () => this.optOuts.withheld(),
    );
    this.exportJobs = new ExportJobs(() => this.engine, this.auditLog, this.exportHistory, { datasetOf: (e) => this.engines.refOf(e) });
    this.audiences = new AudienceService(() => this.engine, this.exportJobs, {
      savedAudience: (id) => this.savedAudiences.get(id),
      list: (id) => this.lists.matcher(id),
      export: (id) => this.exportHistory.matcher(id),
      optOuts: () => this.optOuts.matcher(),
      exportsSince: (day) => this.exportHistory.exportsSince(day),
    });
    this.importJobs = new ImportJobs({
      homeDir: this.homeDir,
      audit: this.auditLog,
      currentDataset: () => this.engines.datasetPath,
      switchTo: (path) => this.switchDataset(path),
      noteDataset: (path) => this.datasets.note(path, readDatasetFacts(path), false),
      currentRef: () => this.engines.ref,
      prune: () => this.datasets.prune(),
    });
    if (options.engine) this.engines.use(options.engine, null);
    else if (options.datasetPath) this.openDataset(options.datasetPath);
    // After the first dataset opened: opening the one a caller named is not a change of the stored choice.
    const secrets = options.secretStore?.(this.appState) ?? new FileSecretStore(credentialsFilePath(this.homeDir));
    this.dataSources = new DataSources(this, secrets, options.bundledDatasetPath ?? null);
  }

  /** Opens a dataset and makes it current; the previous one is closed only once the new one opened. */
  openDataset(path: string): Dataset {
    return this.engines.switchTo(path).dataset;
  }

  /**
   * openDataset for a dataset replacing the one in use while the app runs (an import): resolves with
   * the previous dataset's path once it is closed, which waits for exports still reading from it.
   */
  switchDataset(path: string): Promise<string | null> {
    return this.engines.switchTo(path).previousClosed;
  }

  /** Called with the new dataset's path whenever one becomes current (the desktop app remembers it). */
  onDatasetOpened(listener: (path: string) => void): void {
    this.engines.onDatasetOpened(listener);
  }

  /**
   * Makes another engine (a ClickHouse server) answer every query from now on, as a dataset switch
   * does: the dataset file in use closes once exports reading it finish. `ref` names its data for
   * saved audiences and the audit log.
   */
  useEngine(engine: AudienceEngine, ref: DatasetRef | null): void {
    this.engines.use(engine, ref);
  }

  /** True while an engine other than a dataset file (ClickHouse) answers. */
  get usesEngine(): boolean {
    return this.engines.usesExternal;
  }

  /** The engine answering now, or null while none is open. */
  get engineOrNull(): AudienceEngine | null {
    return this.engines.engineOrNull;
  }

  /** The dataset file answering now; null while none is open or ClickHouse answers (useEngine clears it). */
  get activeDatasetPath(): string | null {
    return this.engines.datasetPath;
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
    return this.engines.ref;
  }

  /** The dataset an engine reads (an export's, which may no longer be the current one). */
  datasetRefOf(engine: object): DatasetRef | null {
    return this.engines.refOf(engine);
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
    return stageRestore(this.appState, this.homeDir, file, () => {
      this.lists.reloaded();
      this.optOuts.reloaded();
    });
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
    this.engines.close();
  }

  /** The engine of the current dataset; `unavailable` until one is open. */
  get engine(): AudienceEngine {
    return this.engines.engine;
  }

  get hasDataset(): boolean {
    return this.engines.hasEngine;
  }

  /**
   * The one shutdown (desktop app, `serve`, tests): stops running exports and imports and waits for
   * them, so their temporary files are gone and their audit entries written, then closes everything.
   */
  shutdown(): Promise<void> {
    return (this.closing ??= (async () => {
      await Promise.all([this.exportJobs.cancelAll(), this.importJobs.cancelAll()]);
      this.closeDataset();
      this.keys.recordUses();
      this.appState.close();
    })());
  }
}

export function createCore(options: CoreOptions = {}): Core {
  return new Core(options);
}
