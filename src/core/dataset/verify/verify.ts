// The full check of a dataset in the background after it opens (verifyFile.ts on a worker thread,
// so requests never wait on it; on this thread a step at a time when a worker cannot start).
// docs/dataset-format.md, "Damage".
import { AppError } from '../../../shared/errors';
import { startWorker } from '../../workers/startWorker';
import type { Dataset } from '../read/dataset';
import type { VerifyResult } from './verifyFile';

/** A step at most this long on the caller's thread, then the event loop runs before the next. */
const SLICE_MS = 4;

/** Where damage found in the background is told by default: the process's error output (serve's, the app's log). */
const reportDamage = (message: string): void => console.error(`error: ${message}`);

/**
 * How long after open the background verify starts: a dataset opened for one command (an export, a
 * test's core) is closed before, and costs no thread; the app and `serve` are verified a moment in.
 */
export const VERIFY_DELAY_MS = 3000;

/**
 * Verifies an open dataset in the background, `delayMs` after the call; what it finds damaged goes
 * to `dataset.damage` and to `onDamage` (by default one line on stderr), and `onFinished` hears
 * whether the whole file was found sound once the check ends. Stops when the dataset is closed.
 */
export function startBackgroundVerify(
  dataset: Dataset,
  onDamage: (message: string) => void = reportDamage,
  delayMs = VERIFY_DELAY_MS,
  onFinished: (sound: boolean) => void = () => undefined,
): void {
  const timer = setTimeout(() => {
    if (dataset.isOpen) verifyInBackground(dataset, onDamage, onFinished);
  }, delayMs);
  // Never keeps a process alive, nor does the verify once started.
  timer.unref();
  dataset.onClose(() => clearTimeout(timer));
}

function verifyInBackground(dataset: Dataset, onDamage: (message: string) => void, onFinished: (sound: boolean) => void): void {
  const found = (message: string) => {
    if (!dataset.isOpen) return;
    dataset.damage ??= message;
    onDamage(message);
  };
  const worker = startWorker('verifyWorker', import.meta.url, { workerData: { path: dataset.path } });
  if (worker) {
    worker.unref();
    worker.on('message', (result: VerifyResult) => {
      if (!result.ok) found(result.message);
      if (dataset.isOpen) onFinished(result.ok);
    });
    // A worker that fails for any other reason leaves the checks on read to find damage.
    worker.on('error', () => undefined);
    dataset.onClose(() => void worker.terminate());
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
