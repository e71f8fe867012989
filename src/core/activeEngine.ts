// Which engine answers now, and the hand-over from one to the next: a dataset file (the embedded
// engine) or another engine (a ClickHouse server). A switch is at once for queries; the engine it
// replaces is retired only once the exports still reading it have finished (draining), and a
// dataset file being drained is never pruned or deleted from the history meanwhile.
import type { DatasetRef } from '../shared/contract';
import { AppError } from '../shared/errors';
import type { AudienceEngine } from './audience/contract/engine';
import { Dataset } from './dataset/read/dataset';
import type { VerifiedFiles } from './dataset/verify/verifiedFiles';
import { EmbeddedEngine } from './query/embeddedEngine';

export interface ActiveEngineDeps {
  /** Milliseconds one preview or search of a dataset file may take. */
  queryBudgetMs: number;
  /** Files a whole verify found sound (the background verify skips them while unchanged). */
  verifiedFiles?: VerifiedFiles;
  /** Notes a dataset file made current in the history; its reference, for saved audiences and the audit log. */
  noteCurrent(dataset: Dataset): DatasetRef;
  /** Resolves once no export reads from the engine. */
  idle(engine: AudienceEngine): Promise<void>;
  /** Called after a retired dataset file closed (the history may prune older ones then). */
  retired(): void;
}

export class ActiveEngine {
  private current: EmbeddedEngine | null = null;
  /** An engine other than a dataset file; when set, every query goes to it. */
  private external: AudienceEngine | null = null;
  private currentRef: DatasetRef | null = null;
  /** Dataset files still open because an export reads them. */
  private readonly drainingPaths = new Set<string>();
  private readonly refs = new WeakMap<object, DatasetRef>();
  private readonly listeners: Array<(path: string) => void> = [];

  constructor(private readonly deps: ActiveEngineDeps) {}

  /** Makes a dataset file current; the previous engine is retired once its exports finish (resolves with its path). */
  switchTo(path: string): { dataset: Dataset; previousClosed: Promise<string | null> } {
    const dataset = Dataset.open(path);
    const previous = this.current;
    // A ClickHouse server answering until now steps aside the same way: exports reading it finish first.
    this.retireExternal();
    this.current = new EmbeddedEngine(dataset, { queryBudgetMs: this.deps.queryBudgetMs, verifiedFiles: this.deps.verifiedFiles });
    this.currentRef = this.deps.noteCurrent(dataset);
    this.refs.set(this.current, this.currentRef);
    for (const listener of this.listeners) listener(path);
    // Queries answer from the new dataset from now on; an export still reading the old one keeps it open.
    return { dataset, previousClosed: previous ? this.retireDataset(previous) : Promise.resolve(null) };
  }

  /**
   * Makes another engine (a ClickHouse server) answer every query from now on, as a dataset switch
   * does: the dataset file in use closes once exports reading it finish. `ref` names its data.
   */
  use(engine: AudienceEngine, ref: DatasetRef | null): void {
    const previous = this.current;
    if (this.external !== engine) this.retireExternal();
    this.external = engine;
    this.current = null;
    this.currentRef = ref;
    if (ref) this.refs.set(engine, ref);
    if (previous) void this.retireDataset(previous);
  }

  /** Called with the new dataset's path whenever one becomes current. */
  onDatasetOpened(listener: (path: string) => void): void {
    this.listeners.push(listener);
  }

  /** The engine answering now; `unavailable` until one is open. */
  get engine(): AudienceEngine {
    if (this.external) return this.external;
    if (!this.current) throw new AppError('unavailable', 'No dataset is open yet; try again in a moment.');
    return this.current;
  }

  /** The engine answering now, or null. */
  get engineOrNull(): AudienceEngine | null {
    return this.external ?? this.current;
  }

  get hasEngine(): boolean {
    return this.current !== null || this.external !== null;
  }

  /** True while an engine other than a dataset file (ClickHouse) answers. */
  get usesExternal(): boolean {
    return this.external !== null;
  }

  /** The dataset file answering now; null while none is open or another engine answers. */
  get datasetPath(): string | null {
    return this.current?.dataset.path ?? null;
  }

  /** The data queries answer from now, as saved audiences and audit entries record it. */
  get ref(): DatasetRef | null {
    return this.currentRef;
  }

  /** The data an engine reads (an export's, which may no longer be the current one). */
  refOf(engine: object): DatasetRef | null {
    return this.refs.get(engine) ?? null;
  }

  /** Dataset files kept open for exports still reading them. */
  get draining(): ReadonlySet<string> {
    return this.drainingPaths;
  }

  /** Closes whatever answers; until another opens, queries are `unavailable` (shutdown). */
  close(): void {
    this.external?.close();
    this.external = null;
    this.current?.dataset.close();
    this.current = null;
    this.currentRef = null;
  }

  private retireDataset(previous: EmbeddedEngine): Promise<string> {
    this.drainingPaths.add(previous.dataset.path);
    return this.deps.idle(previous).then(() => {
      previous.dataset.close();
      this.drainingPaths.delete(previous.dataset.path);
      this.deps.retired();
      return previous.dataset.path;
    });
  }

  /** Queries stop going to the external engine at once; it closes once exports reading it finish. */
  private retireExternal(): void {
    const external = this.external;
    if (!external) return;
    this.external = null;
    void this.deps.idle(external).then(() => external.close());
  }
}
