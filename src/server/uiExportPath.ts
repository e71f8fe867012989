// Browser mode has no save dialog: exports go to `<homeDir>/exports/` under a name made safe from
// the one the page asked for. Whatever the page sends, the file lands in that folder (no separators,
// no dot-files, no drive letters), with the format's extension, and never over an existing file.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { homeLayout } from '../core/appState/homeLayout';
import { makePrivateDir } from '../core/fs/privateFile';
import type { ExportFormat } from '../core/export/exportAudience';

const NAME_MAX = 120;

export function sanitizeExportName(fileName: string, format: ExportFormat): string {
  const last = fileName.split(/[\\/]/).pop() ?? '';
  let stem = last
    .replace(/\.(csv|jsonl)$/i, '')
    .replace(/[^A-Za-z0-9._ -]+/g, '_')
    .replace(/^[.\s_-]+/, '')
    .trim()
    .slice(0, NAME_MAX);
  if (stem === '') stem = 'audience';
  return `${stem}.${format}`;
}

/** deps.resolveExportPath for browser mode. */
export function browserExportPath(homeDir: string): (fileName: string, format: ExportFormat) => Promise<string> {
  return async (fileName, format) => {
    const dir = homeLayout(homeDir).exports;
    makePrivateDir(dir);
    const name = sanitizeExportName(fileName, format);
    const stem = name.slice(0, -(format.length + 1));
    let candidate = join(dir, name);
    for (let n = 2; existsSync(candidate); n++) candidate = join(dir, `${stem} (${n}).${format}`);
    return candidate;
  };
}
