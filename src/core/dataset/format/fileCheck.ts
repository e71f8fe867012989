// What a dataset file's first 100 bytes (SQLite's header) say before SQLite opens it: a file that
// is not a SQLite database at all, or one shorter than its header says (truncated: a copy cut
// short, a full disk), is refused with one sentence naming it, rather than SQLite's "file is not a
// database" or "database disk image is malformed" later, naming nothing.
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { AppError } from '../../../shared/errors';
import { datasetDamaged } from './damage';

const MAGIC = 'SQLite format 3\0';

export function checkDatasetFile(path: string): void {
  const header = Buffer.alloc(100);
  let size: number;
  const fd = openSync(path, 'r');
  try {
    size = fstatSync(fd).size;
    readSync(fd, header, 0, 100, 0);
  } finally {
    closeSync(fd);
  }
  if (size === 0 || header.toString('latin1', 0, 16) !== MAGIC)
    throw new AppError('unavailable', `The file ${path} is not an Audience Desk dataset (it is not a SQLite database).`);
  if (size < 100) throw truncated(path, size, 100);
  // Page size (1 means 65536) and the page count, which is valid when the change counter at 24
  // matches the "version valid for" number at 92 (every SQLite since 3.7.0 writes both).
  const raw = header.readUInt16BE(16);
  const pageSize = raw === 1 ? 65536 : raw;
  const pages = header.readUInt32BE(28);
  if (header.readUInt32BE(24) === header.readUInt32BE(92) && pages > 0 && size < pages * pageSize)
    throw truncated(path, size, pages * pageSize);
}

function truncated(path: string, size: number, expected: number): AppError {
  return datasetDamaged(path, `it is truncated: ${size} bytes of ${expected}`);
}
