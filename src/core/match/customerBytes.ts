// The bytes of a customer file as they stream from disk: plain, or gzip (told by its first two bytes)
// unzipped as it comes. Nothing holds the whole file, so the size bound is there for the disk and the
// time a run takes, and against a gzip bomb: the unzipped bytes are counted as they stream and the
// read stops at the bound. Errors are sentences naming the file, never its content.
import { closeSync, createReadStream, readSync } from 'node:fs';
import { basename } from 'node:path';
import type { Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { AppError } from '../../shared/errors';
import { openRegularFile } from '../fs/regularFile';

/** A customer file, compressed or not, may be at most this big once unzipped. */
export const CUSTOMER_FILE_MAX_BYTES = 4 * 1024 * 1024 * 1024;
const MAX_LABEL = '4 GB';
/** Bytes read from disk at a time. */
const READ_BYTES = 1 << 20;

const tooBig = (name: string): AppError => new AppError('invalid_request', `${name} is over ${MAX_LABEL}; split it.`, 'file');
const unreadable = (name: string, e: unknown): AppError =>
  new AppError('invalid_request', `Cannot read ${name}: ${(e as NodeJS.ErrnoException).code ?? 'error'}.`, 'file');

/** Opens the file (a link only when `followLinks`) and says whether it is gzip. */
function open(path: string, followLinks: boolean): { fd: number; gzip: boolean } {
  const name = basename(path);
  try {
    const { fd, stats } = openRegularFile(path, { followLinks, field: 'file', label: name });
    try {
      if (stats.size > CUSTOMER_FILE_MAX_BYTES) throw tooBig(name);
      const magic = Buffer.alloc(2);
      const got = readSync(fd, magic, 0, 2, 0);
      return { fd, gzip: got === 2 && magic[0] === 0x1f && magic[1] === 0x8b };
    } catch (e) {
      closeSync(fd);
      throw e;
    }
  } catch (e) {
    if (e instanceof AppError) throw e;
    throw unreadable(name, e);
  }
}

/** The file's bytes, unzipped, in pieces as they come; at most CUSTOMER_FILE_MAX_BYTES in all. */
export async function* customerFileBytes(path: string, followLinks: boolean): AsyncGenerator<Buffer> {
  const name = basename(path);
  const { fd, gzip } = open(path, followLinks);
  const file = createReadStream('', { fd, start: 0, highWaterMark: READ_BYTES, autoClose: true });
  const gunzip = gzip ? createGunzip({ chunkSize: READ_BYTES }) : null;
  const stream: Readable = gunzip ? file.pipe(gunzip) : file;
  // pipe() does not pass on the file's errors: they end the unzipped stream the same way.
  if (gunzip) file.on('error', (e) => gunzip.destroy(e));
  let total = 0;
  try {
    for await (const piece of stream) {
      const bytes = piece as Buffer;
      total += bytes.length;
      if (total > CUSTOMER_FILE_MAX_BYTES) throw tooBig(name);
      yield bytes;
    }
  } catch (e) {
    if (e instanceof AppError) throw e;
    if (gzip && (e as NodeJS.ErrnoException).code?.startsWith('Z_'))
      throw new AppError('invalid_request', `${name} is not a whole gzip file.`, 'file');
    throw unreadable(name, e);
  } finally {
    gunzip?.destroy();
    file.destroy();
  }
}
