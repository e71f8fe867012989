// The composition root: one Core per process, shared by the HTTP server, the IPC bridge and the CLI.
// No globals: everything the transports need hangs off this object.
import { AppError } from '../shared/errors';
import { normalizeAudienceRequest, type NormalizedAudience } from '../shared/audienceRequest';
import { openAppState } from './appState/appStateDb';
import { defaultHomeDir } from './appState/homeDir';
import { Dataset } from './dataset/dataset';
import { KeyStore } from './keys/keyStore';
import { AudienceEngine, type PreviewRecord, type SearchPage } from './query/audienceEngine';
import type { Db } from './sqlite';

export interface CoreOptions {
  /** Where app state lives; the OS's per-user app-data folder by default. */
  homeDir?: string;
  /** The dataset to open at once; without it the core answers `unavailable` until one is opened. */
  datasetPath?: string;
}

export class Core {
  readonly homeDir: string;
  readonly appState: Db;
  readonly keys: KeyStore;
  private current: AudienceEngine | null = null;

  constructor(options: CoreOptions = {}) {
    this.homeDir = options.homeDir ?? defaultHomeDir();
    this.appState = openAppState(this.homeDir);
    this.keys = new KeyStore(this.appState);
    if (options.datasetPath) this.openDataset(options.datasetPath);
  }

  /** Opens a dataset and makes it current; the previous one is closed only once the new one opened. */
  openDataset(path: string): Dataset {
    const dataset = Dataset.open(path);
    const previous = this.current;
    this.current = new AudienceEngine(dataset);
    previous?.dataset.close();
    return dataset;
  }

  /** Closes the current dataset (e.g. while an import replaces its file). */
  closeDataset(): void {
    this.current?.dataset.close();
    this.current = null;
  }

  get engine(): AudienceEngine {
    if (!this.current) throw new AppError('unavailable', 'No dataset is open yet; try again in a moment.');
    return this.current;
  }

  get hasDataset(): boolean {
    return this.current !== null;
  }

  preview(body: unknown): { total: number; results: PreviewRecord[] } {
    const request = normalizeAudienceRequest(body);
    return this.engine.preview(request);
  }

  search(body: unknown): SearchPage {
    const request: NormalizedAudience = normalizeAudienceRequest(body);
    return this.engine.search(request);
  }

  close(): void {
    this.closeDataset();
    this.appState.close();
  }
}

export function createCore(options: CoreOptions = {}): Core {
  return new Core(options);
}
