// The composition root: one Core per process, shared by the HTTP server, the IPC bridge and the CLI.
// No globals: everything the transports need hangs off this object.
import { AppError } from '../shared/errors';
import { openAppState } from './appState/appStateDb';
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

export interface CoreOptions {
  /** Where app state lives; the OS's per-user app-data folder by default. */
  homeDir?: string;
  /** The dataset to open at once; without it the core answers `unavailable` until one is opened. */
  datasetPath?: string;
  /** Milliseconds one preview or search may take before it answers `unavailable` (DEFAULT_QUERY_BUDGET_MS). */
  queryBudgetMs?: number;
  /** An engine that answers instead of a dataset file (a ClickHouse server: src/core/clickhouse); the core closes it. */
  engine?: AudienceEngine;
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
  /** Counts, previews, searches, breakdowns and exports: what every transport calls. */
  readonly audiences: AudienceService;
  private current: EmbeddedEngine | null = null;
  /** CoreOptions.engine: when set, every query goes to it and no dataset file is opened. */
  private external: AudienceEngine | null = null;
  private readonly datasetListeners: Array<(path: string) => void> = [];
  private readonly queryBudgetMs: number;
  private closing: Promise<void> | null = null;

  constructor(options: CoreOptions = {}) {
    this.homeDir = options.homeDir ?? defaultHomeDir();
    this.queryBudgetMs = options.queryBudgetMs ?? DEFAULT_QUERY_BUDGET_MS;
    this.appState = openAppState(this.homeDir);
    this.keys = new KeyStore(this.appState);
    this.savedAudiences = new SavedAudienceStore(this.appState);
    this.auditLog = new AuditLog(this.appState);
    this.lists = new SuppressionLists(this.appState, () => this.current ?? this.external);
    this.exportHistory = new ExportHistory(this.appState);
    this.exportJobs = new ExportJobs(() => this.engine, this.auditLog, this.exportHistory);
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
    });
    this.external = options.engine ?? null;
    if (options.datasetPath && !this.external) this.openDataset(options.datasetPath);
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
    this.current = new EmbeddedEngine(dataset, { queryBudgetMs: this.queryBudgetMs });
    for (const listener of this.datasetListeners) listener(path);
    // Queries answer from the new dataset from now on; an export still reading the old one keeps it open.
    const previousClosed = previous
      ? this.exportJobs.idle(previous).then(() => {
          previous.dataset.close();
          return previous.dataset.path;
        })
      : Promise.resolve(null);
    return { dataset, previousClosed };
  }

  /** Closes the current dataset; until another is opened the core answers `unavailable` (on shutdown). */
  closeDataset(): void {
    this.external?.close();
    this.external = null;
    this.current?.dataset.close();
    this.current = null;
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
