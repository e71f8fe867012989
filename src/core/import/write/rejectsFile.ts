// The rejects file: one CSV line per rejected row (file, line, field, reason, row as in the file),
// written under a partial name and published (atomicFile.ts) only when the import succeeds, so it
// always describes the dataset in place. A second reader's rows wait in a file of their own and are
// appended at the end, so rows keep the input's order. docs/import.md, "The rejects file".
import { closeSync, fsyncSync, ftruncateSync, readSync, rmSync, writeSync } from 'node:fs';
import { csvField } from '../../dataset/codec/recordFormat';
import { partialPathFor, renameIntoPlace } from '../../fs/atomicFile';
import { replacePrivateFile } from '../../fs/privateFile';
import type { RejectedRow } from '../types';

export const REJECTS_HEADER = 'file,line,field,reason,row';
const FLUSH_AT = 64 * 1024;

/** A file written from the start, through a buffer. */
class Appender {
  readonly fd: number;
  private buffer = '';
  position = 0;
  constructor(readonly path: string) {
    this.fd = replacePrivateFile(path); // rejected rows as they were in the file: owner-only
  }
  add(text: string): void {
    this.buffer += text;
    if (this.buffer.length >= FLUSH_AT) this.flush();
  }
  flush(): void {
    if (this.buffer) this.position += writeSync(this.fd, this.buffer, this.position);
    this.buffer = '';
  }
  truncate(): void {
    this.buffer = '';
    ftruncateSync(this.fd, 0);
    this.position = 0;
  }
}

export class RejectsFile {
  readonly tempPath: string;
  private readonly file: Appender;
  /** Rows of readers after the first, by reader (index 0 unused). */
  private readonly held: Appender[] = [];
  private closed = false;

  constructor(readonly targetPath: string) {
    this.tempPath = partialPathFor(targetPath);
    this.file = new Appender(this.tempPath);
    this.file.add(REJECTS_HEADER + '\r\n');
  }

  /** A rejected row; `reader`: which reader's share it is from (0 when there is one). */
  add(row: RejectedRow, reader = 0): void {
    const line = `${csvField(row.file)},${row.line},${csvField(row.field)},${csvField(row.reason)},${csvField(row.raw)}\r\n`;
    if (reader === 0) this.file.add(line);
    else (this.held[reader] ??= new Appender(`${this.tempPath}-r${reader}`)).add(line);
  }

  /** Empties the file (an import that starts its reading again: importRun.ts). */
  reset(): void {
    this.file.truncate();
    this.file.add(REJECTS_HEADER + '\r\n');
    for (const held of this.held) held?.truncate();
  }

  /**
   * Writes out and syncs the file (the step that can fail on a full disk), still under its
   * temporary name: the held rows of later readers are appended in reader order.
   */
  complete(): void {
    if (this.closed) return;
    this.file.flush();
    const chunk = Buffer.alloc(1 << 20);
    for (const held of this.held) {
      if (!held) continue;
      held.flush();
      for (let at = 0; at < held.position;) {
        const n = readSync(held.fd, chunk, 0, Math.min(chunk.length, held.position - at), at);
        if (n === 0) throw new Error(`${held.path} is shorter than what was written to it.`);
        for (let w = 0; w < n;) w += writeSync(this.file.fd, chunk, w, n - w, this.file.position + w);
        this.file.position += n;
        at += n;
      }
    }
    fsyncSync(this.file.fd);
    this.close();
  }

  /** Renames the completed file into place. */
  publish(): void {
    this.complete();
    renameIntoPlace(this.tempPath, this.targetPath); // complete() synced it
  }

  /** Drops the unfinished file. */
  discard(): void {
    this.close();
    rmSync(this.tempPath, { force: true });
  }

  private close(): void {
    if (this.closed) return;
    this.closed = true;
    closeSync(this.file.fd);
    for (const held of this.held) {
      if (!held) continue;
      closeSync(held.fd);
      rmSync(held.path, { force: true });
    }
  }
}
