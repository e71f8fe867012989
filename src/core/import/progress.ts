// The import's progress reports, at most one per interval within a phase, so a caller that
// renders each one (the CLI, the app's status) is not flooded. A reading that started again
// (importRun.ts) reports nothing until it is past where the one before stopped, so the numbers
// shown never go backwards.
import type { ImportProgress } from './types';

const INTERVAL_MS = 200;

export class ProgressReporter {
  private lastAt = 0;
  private lastPhase = '';
  private rowsReported = 0;

  constructor(
    private readonly onProgress: ((progress: ImportProgress) => void) | undefined,
    private readonly totalBytes: number,
  ) {}

  /** Reports unless one was just reported in the same phase; `force` reports anyway (a phase's end). */
  report(progress: Omit<ImportProgress, 'totalBytes'>, force = false): void {
    if (!this.onProgress) return;
    const now = performance.now();
    if (!force && progress.phase === this.lastPhase && now - this.lastAt < INTERVAL_MS) return;
    if (progress.phase === 'reading' && progress.rowsRead < this.rowsReported) return;
    this.rowsReported = progress.rowsRead;
    this.lastAt = now;
    this.lastPhase = progress.phase;
    this.onProgress({ ...progress, totalBytes: this.totalBytes });
  }
}

/** Rows a second since `since` (a performance.now() time). */
export function rate(rows: number, since: number): number {
  const seconds = (performance.now() - since) / 1000;
  return seconds > 0 ? Math.round(rows / seconds) : 0;
}
