// The SecretStore of browser mode and the CLI: `<home>/clickhouse-credentials.json`, the same
// {"user": …, "password": …} shape as the CLI's --credentials file (so `cli clickhouse check
// --credentials <that file>` reads it too), readable by the owner only (mode 0600) and written
// atomically (a temporary file beside it, synced, renamed over it), so a crash leaves the old
// credentials or the new ones, never half of either. Nothing here prints what the file holds.
import { chmodSync, existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { AppError } from '../../shared/errors';
import type { ClickHouseCredentials } from '../clickhouse/connection';
import { readCredentials } from '../clickhouse/credentials';
import { partialPathFor, publishFile, randomTag } from '../fs/atomicFile';
import type { SecretStore } from './secretStore';

export const CREDENTIALS_FILE = 'clickhouse-credentials.json';

export function credentialsFilePath(homeDir: string): string {
  return join(homeDir, CREDENTIALS_FILE);
}

export class FileSecretStore implements SecretStore {
  readonly description: string;

  constructor(readonly path: string) {
    this.description = `a file only your user can read (${path}, mode 0600)`;
  }

  async load(): Promise<ClickHouseCredentials | null> {
    if (!existsSync(this.path)) return null;
    try {
      return readCredentials(this.path);
    } catch (e) {
      throw new AppError(
        'unavailable',
        `The stored ClickHouse credentials (${this.path}) cannot be read; enter the password again. (${(e as Error).message})`,
      );
    }
  }

  async save(credentials: ClickHouseCredentials): Promise<void> {
    mkdirSync(dirname(this.path), { recursive: true, mode: 0o700 });
    const temp = partialPathFor(this.path, randomTag());
    try {
      // Created owner-only: the password is never readable by others, not even for an instant.
      writeFileSync(temp, `${JSON.stringify({ user: credentials.username, password: credentials.password })}\n`, {
        mode: 0o600,
        flag: 'wx',
      });
      chmodSync(temp, 0o600); // the umask cannot widen it, but a pre-set umask may narrow; make it exact
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
