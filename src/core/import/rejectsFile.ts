// The rejects file: one CSV line per rejected row (file, line, field, reason, row as in the file),
// so a person can see why, fix the row and import it again. RFC 4180 like every CSV this app writes.
// Written under a temporary name beside the target (`.<name>.partial-<pid>`) and renamed only when
// the import has succeeded, so it always describes the dataset that is in place.
import { closeSync, fsyncSync, ftruncateSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fsyncPath } from '../dataset/datasetWriter';
import { csvField } from '../dataset/recordFormat';
import type { RejectedRow } from './types';

export const REJECTS_HEADER = 'file,line,field,reason,row';
const FLUSH_AT = 64 * 1024;

export function partialRejectsPath(target: string, pid = process.pid): string {
  return join(dirname(target), `.${basename(target)}.partial-${pid}`);
}

export class RejectsFile {
  readonly tempPath: string;
  private readonly fd: number;
  private buffer = '';
  private position = 0;
  private closed = false;

  constructor(readonly targetPath: string) {
    this.tempPath = partialRejectsPath(targetPath);
    this.fd = openSync(this.tempPath, 'w', 0o600);
    this.buffer = REJECTS_HEADER + '\r\n';
  }

  add(row: RejectedRow): void {
    this.buffer += `${csvField(row.file)},${row.line},${csvField(row.field)},${csvField(row.reason)},${csvField(row.raw)}\r\n`;
    if (this.buffer.length >= FLUSH_AT) this.flush();
  }

  /** Empties the file (an import that starts its reading again, see importFiles). */
  reset(): void {
    this.buffer = REJECTS_HEADER + '\r\n';
    ftruncateSync(this.fd, 0);
    this.position = 0;
  }

  private flush(): void {
    if (this.buffer) this.position += writeSync(this.fd, this.buffer, this.position);
    this.buffer = '';
  }

  /** Writes out and syncs the file (the step that can fail on a full disk), still under its temporary name. */
  complete(): void {
    if (this.closed) return;
    this.flush();
    fsyncSync(this.fd);
    closeSync(this.fd);
    this.closed = true;
  }

  /** Renames the completed file into place. */
  publish(): void {
    this.complete();
    renameSync(this.tempPath, this.targetPath);
    fsyncPath(dirname(this.targetPath));
  }

  /** Drops the unfinished file. */
  discard(): void {
    if (!this.closed) {
      this.closed = true;
      closeSync(this.fd);
    }
    rmSync(this.tempPath, { force: true });
  }
}
