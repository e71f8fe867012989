// Native dialogs: where an export goes is the user's choice in the OS save dialog (the renderer
// only suggests a name); dismissing it means no export. The files to import are chosen in the OS
// open dialog; the renderer never names a path the user did not pick.
import { dialog, type BrowserWindow } from 'electron';
import { extname, join } from 'node:path';
import type { ExportFormat } from '../core/export/exportAudience';
import type { ImportPick } from '../shared/contract';
import { sanitizeExportName } from '../server/uiExportPath';

const FILTERS: Record<ExportFormat, Electron.FileFilter> = {
  csv: { name: 'CSV (comma-separated values)', extensions: ['csv'] },
  jsonl: { name: 'JSON Lines', extensions: ['jsonl'] },
};

export function saveDialogExportPath(window: () => BrowserWindow | null, defaultDir: () => string) {
  return async (fileName: string, format: ExportFormat): Promise<string | null> => {
    const win = window();
    const options: Electron.SaveDialogOptions = {
      title: 'Export audience',
      buttonLabel: 'Export',
      defaultPath: join(defaultDir(), sanitizeExportName(fileName, format)),
      filters: [FILTERS[format]],
      properties: ['createDirectory', 'showOverwriteConfirmation'],
    };
    const result = win ? await dialog.showSaveDialog(win, options) : await dialog.showSaveDialog(options);
    if (result.canceled || !result.filePath) return null;
    // Some platforms return the name as typed; the file must say what it holds.
    return extname(result.filePath).toLowerCase() === `.${format}` ? result.filePath : `${result.filePath}.${format}`;
  };
}

const IMPORT_FILTERS: Electron.FileFilter[] = [
  { name: 'Vendor files (CSV, TSV, pipe, gzip)', extensions: ['csv', 'tsv', 'txt', 'psv', 'dat', 'gz'] },
  { name: 'All files', extensions: ['*'] },
];

export function openDialogImportFiles(window: () => BrowserWindow | null, defaultDir: () => string) {
  return async (): Promise<ImportPick> => {
    const win = window();
    const options: Electron.OpenDialogOptions = {
      title: 'Import vendor files',
      buttonLabel: 'Choose',
      defaultPath: defaultDir(),
      filters: IMPORT_FILTERS,
      properties: ['openFile', 'multiSelections'],
    };
    const result = win ? await dialog.showOpenDialog(win, options) : await dialog.showOpenDialog(options);
    return { files: result.canceled ? [] : result.filePaths, inbox: null };
  };
}
