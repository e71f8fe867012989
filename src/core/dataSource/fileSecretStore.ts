// The SecretStore of browser mode and the CLI: `<home>/clickhouse-credentials.json`, the same
// {"user": …, "password": …} shape as the CLI's --credentials file (so `cli clickhouse check
// --credentials <that file>` reads it too) plus the "url" the password was typed for (issue 39; the
// CLI's reader ignores it) and the fallback nodes typed with it, if any, readable by the owner only (mode 0600) and written atomically (a
// temporary file beside it, synced, renamed over it), so a crash leaves the old credentials or the
// new ones, never half of either. Nothing here prints what the file holds.
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { AppError } from '../../shared/errors';
import { partialPathFor, publishFile, randomTag } from '../fs/atomicFile';
import { makePrivateDir, writePrivateFile } from '../fs/privateFile';
import { isTextList, secretRecord, type SecretStore, type StoredClickHouseSecret } from './secretStore';

export const CREDENTIALS_FILE = 'clickhouse-credentials.json';

export function credentialsFilePath(homeDir: string): string {
  return join(homeDir, CREDENTIALS_FILE);
}

export class FileSecretStore implements SecretStore {
  readonly description: string;

  constructor(readonly path: string) {
    this.description = `a file only your user can read (${path}, mode 0600)`;
  }

  async load(): Promise<StoredClickHouseSecret | null> {
    if (!existsSync(this.path)) return null;
    // Read once and checked here (not twice, racing a save): user and password as the CLI's reader wants them, url if any.
    let parsed: { user?: unknown; password?: unknown; url?: unknown; fallbackUrls?: unknown };
    try {
      parsed = (JSON.parse(readFileSync(this.path, 'utf8')) ?? {}) as typeof parsed;
    } catch {
      parsed = {};
    }
    const { user, password, url, fallbackUrls } = parsed;
    if (
      typeof user !== 'string' ||
      user === '' ||
      (password !== undefined && typeof password !== 'string') ||
      (url !== undefined && typeof url !== 'string') ||
      (fallbackUrls !== undefined && !isTextList(fallbackUrls))
    )
      throw new AppError(
        'unavailable',
        `The stored ClickHouse credentials (${this.path}) cannot be read; enter the password again. ` +
          '(It must hold {"user": "...", "password": "..."} with a non-empty user.)',
      );
    return {
      username: user,
      password: password ?? '',
      ...(url === undefined ? {} : { url }),
      ...(fallbackUrls === undefined ? {} : { fallbackUrls }),
    };
  }

  async save(credentials: StoredClickHouseSecret): Promise<void> {
    makePrivateDir(dirname(this.path));
    const temp = partialPathFor(this.path, randomTag());
    try {
      // Created owner-only: the password is never readable by others, not even for an instant.
      const record = secretRecord(credentials);
      writePrivateFile(temp, `${JSON.stringify(record)}\n`);
      publishFile(temp, this.path);
    } catch (e) {
      rmSync(temp, { force: true });
      throw new AppError('unavailable', `The ClickHouse credentials could not be written to ${this.path}: ${(e as Error).message}`);
    }
  }

  async clear(): Promise<void> {
    rmSync(this.path, { force: true });
  }
}
