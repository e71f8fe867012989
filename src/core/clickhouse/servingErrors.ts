// What an API client learns when the ClickHouse server fails one of its queries: a neutral 503 that
// names neither the server's address nor the server's message (an API client is not the
// administrator, and a server's message can quote the query). The detail goes to the server's log
// (stderr of `serve` and of the desktop app) and to the Data source screen, which shows the last one.
import { AppError } from '../../shared/errors';
import { clickhouseCode, isClickHouseFailure } from './connection';

export const NEUTRAL_UNAVAILABLE =
  "The data source is not answering; the administrator can see the detail in the app's Data source screen or the server log.";

/** ClickHouse's TIMEOUT_EXCEEDED: the query ran over max_execution_time, the engine's budget. */
const TIMEOUT_EXCEEDED = 159;

/** The last failure an engine hid from its callers, for the Data source screen. */
export interface ServingFailure {
  /** ISO time of the failure. */
  at: string;
  /** The connection's message: the server's address and its error code and first sentence (quoted text elided). */
  detail: string;
}

export class ServingErrors {
  private lastFailure: ServingFailure | null = null;

  constructor(
    /** Milliseconds a preview or search may run, said in the answer when the server stopped it for that. */
    private readonly budgetMs: number | undefined,
    private readonly log: (line: string) => void = (line) => console.error(line),
  ) {}

  get last(): ServingFailure | null {
    return this.lastFailure;
  }

  /** The error for the caller: the server's own failures become a neutral `unavailable`; any other error is kept. */
  neutral(error: unknown): unknown {
    if (!isClickHouseFailure(error)) return error;
    this.lastFailure = { at: new Date().toISOString(), detail: error.message };
    this.log(`ClickHouse query failed: ${error.message}`);
    // The same words as the embedded engine's budget (query/embeddedEngine.ts): the caller can act on them.
    if (clickhouseCode(error) === TIMEOUT_EXCEEDED && this.budgetMs)
      return new AppError(
        'unavailable',
        `The query exceeded its time budget of ${this.budgetMs} ms; use more selective filters or try again.`,
      );
    return new AppError('unavailable', NEUTRAL_UNAVAILABLE);
  }
}
