// Every file that holds personal records or secrets (datasets and the temporary files that build
// them, the import's staging file, vector spills, exports, rejects, app state, stored credentials)
// is readable by its owner only from its first byte, whatever the process umask: it is created
// with mode 0600 by the open call itself, with O_EXCL so that a file (or a link) already at that
// name is never written through with its own, wider mode. Nothing is chmod-ed after bytes were
// written. The folders the app makes for such files are 0700.
//
// SQLite keeps the mode of a database file that exists when it opens it, and creates the -wal,
// -shm and -journal files beside it with that same mode: so a database is created here, empty and
// 0600, before SQLite opens it (test/security/fileModes.test.ts checks both).
import { createHash } from 'node:crypto';
import { chmodSync, closeSync, existsSync, fchmodSync, mkdirSync, openSync, readSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';

export const PRIVATE_FILE_MODE = 0o600;
export const PRIVATE_DIR_MODE = 0o700;

/** The files SQLite may create beside a database. */
export const SQLITE_COMPANIONS = ['-journal', '-wal', '-shm'] as const;

/**
 * Creates `path` (it must not exist: EEXIST otherwise), owner-only, open for reading and writing;
 * returns the descriptor.
 */
export function createPrivateFile(path: string): number {
  const fd = openSync(path, 'wx+', PRIVATE_FILE_MODE);
  // The umask can only have narrowed 0600 (a umask like 0277 would leave the owner unable to open
  // it again, as SQLite does): set it exactly, while the file is still empty.
  try {
    fchmodSync(fd, PRIVATE_FILE_MODE);
  } catch (e) {
    closeSync(fd);
    throw e;
  }
  return fd;
}

/** Copies `from` into a new owner-only file `to`, byte for byte; answers the SHA-256 (hex) of what it copied. */
export function copyToPrivateFile(from: string, to: string): string {
  const hash = createHash('sha256');
  const input = openSync(from, 'r');
  try {
    const output = createPrivateFile(to);
    try {
      const buffer = Buffer.allocUnsafe(1 << 20);
      for (let n = readSync(input, buffer, 0, buffer.length, null); n > 0; n = readSync(input, buffer, 0, buffer.length, null)) {
        hash.update(buffer.subarray(0, n));
        for (let done = 0; done < n;) done += writeSync(output, buffer, done, n - done);
      }
    } finally {
      closeSync(output);
    }
  } finally {
    closeSync(input);
  }
  return hash.digest('hex');
}

/** createPrivateFile for a scratch file whose name is this process's own: whatever is there is removed first. */
export function replacePrivateFile(path: string): number {
  rmSync(path, { force: true });
  return createPrivateFile(path);
}

/** createPrivateFile through a FileHandle (a file written in batches with await). */
export async function createPrivateFileHandle(path: string): Promise<FileHandle> {
  const handle = await open(path, 'wx', PRIVATE_FILE_MODE);
  try {
    await handle.chmod(PRIVATE_FILE_MODE); // as in createPrivateFile: exact, while still empty
  } catch (e) {
    await handle.close();
    throw e;
  }
  return handle;
}

/** A new file holding `data`, owner-only from its creation (`path` must not exist). */
export function writePrivateFile(path: string, data: string | Uint8Array): void {
  const fd = createPrivateFile(path);
  try {
    writeFileSync(fd, data);
  } finally {
    closeSync(fd);
  }
}

/**
 * An empty, owner-only file at `path` for SQLite to make a new database in: whatever was there
 * (and any journal, WAL or shared-memory file of it, which SQLite would otherwise take for the
 * new database's) is removed first.
 */
export function createPrivateDatabaseFile(path: string): void {
  for (const companion of SQLITE_COMPANIONS) rmSync(path + companion, { force: true });
  closeSync(replacePrivateFile(path));
}

/**
 * A database kept from run to run (app state): created empty and owner-only when missing; when an
 * older version left it (or its companions) readable by others, narrowed to owner-only before it is
 * opened. Its content is kept.
 */
export function ensurePrivateDatabaseFile(path: string): void {
  try {
    closeSync(createPrivateFile(path));
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
  }
  for (const file of [path, ...SQLITE_COMPANIONS.map((c) => path + c)]) if (existsSync(file)) chmodSync(file, PRIVATE_FILE_MODE);
}

/** Creates a folder for such files (and any missing parent) owner-only; an existing one is left as it is. */
export function makePrivateDir(path: string): void {
  mkdirSync(path, { recursive: true, mode: PRIVATE_DIR_MODE });
}
