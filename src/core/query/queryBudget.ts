// A query's time budget (the queryBudgetMs setting): checked between filter passes and before a
// page is read, so a query that would run too long answers 503 `unavailable` instead of holding the
// request thread.
import { AppError } from '../../shared/errors';

/** A check that throws once `budgetMs` from now is spent; a no-op without a finite budget. */
export function budgetCheck(budgetMs: number | undefined): () => void {
  if (budgetMs === undefined || !Number.isFinite(budgetMs)) return () => undefined;
  const started = performance.now();
  return () => {
    if (performance.now() - started >= budgetMs)
      throw new AppError('unavailable', `The query exceeded its time budget of ${budgetMs} ms; use more selective filters or try again.`);
  };
}
