// The full check of a dataset in the background after it opens (verifyFile.ts on a worker thread
// at the lowest priority that waits while a request runs, verifyGate.ts; on this thread a step at a
// time when a worker cannot start), once a file: a file found sound is not verified again until it
// changes (verifiedFiles.ts).
// docs/dataset-format.md, "Damage".
import type { Worker } from 'node:worker_threads';
import { AppError } from '../../../shared/errors';
import { startWorker } from '../../workers/startWorker';
import type { Dataset } from '../read/dataset';
import type { VerifyResult } from './verifyFile';
import { verifiedIdentity, type VerifiedFiles } from './verifiedFiles';
import { VerifyGate } from './verifyGate';

/** A step at most this long on the caller's thread, then the event loop runs before the next. */
const SLICE_MS = 4;

/** Where damage found in the background is told by default: the process's error output (serve's, the app's log). */
const reportDamage = (message: string): void => console.error(`error: ${message}`);

/**
 * How long after open the background verify starts: a dataset opened for one command (an export, a
 * test's core) is closed before, and costs no thread; the app and `serve` are verified a moment in.
 */
export const VERIFY_DELAY_MS = 3000;

export interface BackgroundVerifyOptions {
  /** Where damage found is told (default: one line on stderr). */
  onDamage?: (message: string) => void;
  /** How long after the call the verify starts (default VERIFY_DELAY_MS). */
  delayMs?: number;
  /** Hears whether the whole file was found sound once the check ends (not called when it was skipped). */
  onFinished?: (sound: boolean) => void;
  /** Files found sound before: one of them is not verified again, and a file found sound joins them. */
  verified?: VerifiedFiles;
  /** Held by requests while they run; the verify waits for them between its steps. */
  gate?: VerifyGate;
  /** Tests: hears the verify's thread once it starts (not when the verify runs on this thread). */
  onThread?: (worker: Worker) => void;
}

/**
 * Verifies an open dataset in the background, `delayMs` after the call, unless `verified` knows the
 * file unchanged since a verify found it sound; what it finds damaged goes to `dataset.damage` and
 * to `onDamage`. Stops when the dataset is closed. Says whether a verify was scheduled or skipped.
 */
export function startBackgroundVerify(dataset: Dataset, options: BackgroundVerifyOptions = {}): 'scheduled' | 'skipped' {
  const { onDamage = reportDamage, delayMs = VERIFY_DELAY_MS, onFinished = () => undefined, verified, gate, onThread } = options;
  const identity = verified ? identityOrNull(dataset) : null;
  if (verified && identity && verified.has(identity)) return 'skipped';
  const finished = (sound: boolean) => {
    if (sound && verified && identity) verified.remember(identity);
    onFinished(sound);
  };
  const timer = setTimeout(() => {
    if (dataset.isOpen) verifyInBackground(dataset, onDamage, finished, gate ?? null, onThread);
  }, delayMs);
  // Never keeps a process alive, nor does the verify once started.
  timer.unref();
  dataset.onClose(() => clearTimeout(timer));
  return 'scheduled';
}

/** The file's identity for VerifiedFiles; null when it cannot be read (the verify then runs). */
function identityOrNull(dataset: Dataset): string | null {
  try {
    return verifiedIdentity(dataset.path, dataset.meta);
  } catch {
    return null;
  }
}

function verifyInBackground(
  dataset: Dataset,
  onDamage: (message: string) => void,
  onFinished: (sound: boolean) => void,
  enginesGate: VerifyGate | null,
  onThread: ((worker: Worker) => void) | undefined,
): void {
  // Without an engine's gate (tests), one of its own: no request ever holds it, and closing it with
  // the dataset ends the worker between two steps (verifyGate.ts says why never terminate()).
  const gate = enginesGate ?? new VerifyGate();
  if (!enginesGate) dataset.onClose(() => gate.close());
  const found = (message: string) => {
    if (!dataset.isOpen) return;
    dataset.damage ??= message;
    onDamage(message);
  };
  const worker = startWorker('verifyWorker', import.meta.url, { workerData: { path: dataset.path, gate: gate.buffer } });
  if (worker) {
    worker.unref();
    worker.on('message', (result: VerifyResult) => {
      if (!result.ok) found(result.message);
      if (dataset.isOpen) onFinished(result.ok);
    });
    // A worker that fails for any other reason leaves the checks on read to find damage.
    worker.on('error', () => undefined);
    onThread?.(worker);
    return;
  }
  const steps = dataset.verifySteps();
  const slice = () => {
    if (!dataset.isOpen) return;
    const until = performance.now() + SLICE_MS;
    try {
      while (performance.now() < until)
        if (steps.next().done) {
          onFinished(true);
          return;
        }
    } catch (e) {
      if (e instanceof AppError) {
        found(e.message);
        onFinished(false);
      }
      return;
    }
    setTimeout(slice, 0).unref();
  };
  setTimeout(slice, 0).unref();
}
