// The one error an import stops with when it is cancelled (its signal aborted): code 'cancelled',
// which the app reports as a cancel, not as a bad request.
import { AppError } from '../../shared/errors';

export const importCancelled = (): AppError => new AppError('cancelled', 'The import was cancelled.');

export function throwIfCancelled(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw importCancelled();
}
