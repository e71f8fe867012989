// Native dialogs: where an export goes is the user's choice in the OS save dialog (the renderer
// only suggests a name); dismissing it means no export.
import { dialog, type BrowserWindow } from 'electron';
import { extname, join } from 'node:path';
import type { ExportFormat } from '../core/export/exportAudience';
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
