// The types of the one handler table: what each transport (IPC in Electron, HTTP in browser mode)
// calls, and what it must supply itself (deps) because it differs between them.
import type { ExportFormat } from '../export/exportAudience';
import type { ImportPick, OperationName, OutputOf, Outputs } from '../../shared/contract';

/** Every operation of the contract; inputs are unknown because they arrive from outside and are parsed here. */
export type HandlerTable = { readonly [K in OperationName]: (input: unknown) => Promise<OutputOf<K>> };

export interface HandlerDeps {
  /**
   * Where an export goes. Electron: the native save dialog (null when the user dismisses it).
   * Browser mode: a sanitized file name under `<homeDir>/exports/`, never a path outside it.
   */
  resolveExportPath(fileName: string, format: ExportFormat): Promise<string | null>;
  /**
   * The files to import. Electron: the native open dialog (no files when dismissed). Browser mode:
   * every file in `<homeDir>/imports/`, the inbox, since a page cannot hand the server a path.
   */
  pickImportFiles(): Promise<ImportPick>;
  /** The loopback API's address, whether it runs, and its recent requests (for the API panel). */
  apiStatus(): Outputs['api/status'];
  /** Who the audit log names for exports started through this table; 'UI' by default. */
  actor?: string;
  /** Where unexpected failures are reported (they reach the caller only as internal_error). */
  logError?: (operation: OperationName, error: unknown) => void;
}
