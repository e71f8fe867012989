// The handler table over a real core (real dataset file, its own app-state folder) and the real API
// server on port 0 (for api/status), with browser-mode-like deps whose export folder the test owns.
import { mkdtempSync, mkdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHandlers, type HandlerDeps, type HandlerTable } from '../../src/core/handlers';
import { sanitizeExportName } from '../../src/server/uiExportPath';
import { startApi, type ApiHarness } from '../support/apiHarness';

export interface HandlerHarness {
  api: ApiHarness;
  h: HandlerTable;
  exportDir: string;
  errors: unknown[];
  /** What the next export dialog answers: a file name in exportDir, or null (dismissed). */
  dialog: { answer: 'accept' | 'dismiss' };
  /** What the next import/pick answers (the open dialog's choice). */
  importPick: { files: string[] };
  close(): Promise<void>;
}

export async function startHandlers(datasetPath: string, extra: Partial<HandlerDeps> = {}): Promise<HandlerHarness> {
  const api = await startApi(datasetPath);
  const exportDir = mkdtempSync(join(tmpdir(), 'audience-desk-exports-'));
  mkdirSync(exportDir, { recursive: true });
  const errors: unknown[] = [];
  const dialog = { answer: 'accept' as 'accept' | 'dismiss' };
  const importPick = { files: [] as string[] };
  const h = createHandlers(api.core, {
    resolveExportPath: async (fileName, format) =>
      dialog.answer === 'dismiss' ? null : join(exportDir, sanitizeExportName(fileName, format)),
    pickImportFiles: async () => ({ files: importPick.files, inbox: null }),
    apiStatus: () => ({ url: api.server.url, running: true, recent: api.server.requestLog.recent() }),
    logError: (_op, e) => errors.push(e),
    ...extra,
  });
  return {
    api,
    h,
    exportDir,
    errors,
    dialog,
    importPick,
    async close() {
      await api.core.exportJobs.cancelAll();
      await api.core.importJobs.cancelAll();
      await api.close();
      rmSync(exportDir, { recursive: true, force: true });
    },
  };
}

/** Runs a call and returns the AppError it throws (fails the test if it does not throw). */
export async function failure(p: Promise<unknown>): Promise<{ code: string; message: string; field?: string }> {
  try {
    await p;
  } catch (e) {
    return e as { code: string; message: string; field?: string };
  }
  throw new Error('expected the call to fail');
}
