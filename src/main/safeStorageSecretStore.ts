// The desktop app's SecretStore: the ClickHouse user and password encrypted with Electron's
// safeStorage (the OS keychain: Keychain on macOS, DPAPI on Windows, libsecret or KWallet on Linux)
// and kept, encrypted, in app state's settings table. Without real OS encryption (safeStorage
// unavailable, or Linux's `basic_text` fallback whose key is the same on every machine) nothing is
// stored: the user is told why rather than getting a password on disk that anyone could read. A
// value this computer cannot decrypt (app state restored from another computer, a new keyring) is a
// clear error asking for the password again. The asynchronous calls: the synchronous ones are deprecated.
// The encrypted record holds the address (and fallback nodes) the password was typed for (issue 39): a restore replaces
// the settings table, and this row with it, but cannot forge a record this keychain decrypts, so the
// binding inside it is the user's own (src/core/dataSource/passwordBinding.ts).
import type { SafeStorage } from 'electron';
import { isTextList, secretRecord, type SecretStore, type StoredClickHouseSecret } from '../core/dataSource/secretStore';
import { SettingsTable } from '../core/appState/settingsTable';
import type { Db } from '../core/sqlite';
import { AppError } from '../shared/errors';

export const SECRET_SETTING = 'datasource.clickhouse.secret';

export const NO_ENCRYPTION =
  'This computer offers the app no OS keychain encryption (Electron safeStorage is unavailable, or on Linux no keyring ' +
  'such as GNOME Keyring or KWallet answers), so the ClickHouse password is not stored. Unlock or install a keyring and try again.';

export const CANNOT_DECRYPT =
  'The stored ClickHouse password cannot be decrypted on this computer (a new keychain, or app state from another ' +
  'computer): enter the password again.';

export type SafeStorageApi = Pick<
  SafeStorage,
  'isAsyncEncryptionAvailable' | 'encryptStringAsync' | 'decryptStringAsync' | 'getSelectedStorageBackend'
>;

export class SafeStorageSecretStore implements SecretStore {
  readonly description = 'the OS keychain (encrypted with Electron safeStorage; only the encrypted form is kept, in app state)';
  private readonly settings: SettingsTable;

  constructor(
    db: Db,
    private readonly safeStorage: SafeStorageApi,
    private readonly platform: NodeJS.Platform = process.platform,
  ) {
    this.settings = new SettingsTable(db);
  }

  private async available(): Promise<boolean> {
    if (!(await this.safeStorage.isAsyncEncryptionAvailable())) return false;
    // Linux without a keyring falls back to a key compiled into Chromium: not a secret at all.
    return this.platform !== 'linux' || this.safeStorage.getSelectedStorageBackend() !== 'basic_text';
  }

  async load(): Promise<StoredClickHouseSecret | null> {
    // Its own parse below: a damaged value is 'cannot decrypt', not 'none stored'.
    const stored = this.settings.readText(SECRET_SETTING);
    if (stored === undefined) return null;
    if (!(await this.available())) throw new AppError('unavailable', CANNOT_DECRYPT);
    let parsed: { user?: unknown; password?: unknown; url?: unknown; fallbackUrls?: unknown };
    let reEncrypt: boolean;
    try {
      const base64 = JSON.parse(stored) as unknown;
      if (typeof base64 !== 'string') throw new Error('not a string');
      const decrypted = await this.safeStorage.decryptStringAsync(Buffer.from(base64, 'base64'));
      reEncrypt = decrypted.shouldReEncrypt;
      parsed = JSON.parse(decrypted.result) as typeof parsed;
    } catch {
      throw new AppError('unavailable', CANNOT_DECRYPT);
    }
    if (
      typeof parsed?.user !== 'string' ||
      typeof parsed.password !== 'string' ||
      (parsed.fallbackUrls !== undefined && !isTextList(parsed.fallbackUrls))
    )
      throw new AppError('unavailable', CANNOT_DECRYPT);
    // No url: kept before passwords were bound; loaded as such, and never sent (passwordBinding.ts).
    const url = typeof parsed.url === 'string' ? { url: parsed.url } : {};
    const fallbacks = parsed.fallbackUrls === undefined ? {} : { fallbackUrls: parsed.fallbackUrls };
    const credentials: StoredClickHouseSecret = { username: parsed.user, password: parsed.password, ...url, ...fallbacks };
    // The keychain rotated its key: keep the password under the new one.
    if (reEncrypt) await this.save(credentials);
    return credentials;
  }

  async save(credentials: StoredClickHouseSecret): Promise<void> {
    if (!(await this.available())) throw new AppError('unavailable', NO_ENCRYPTION);
    const encrypted = await this.safeStorage.encryptStringAsync(JSON.stringify(secretRecord(credentials)));
    this.settings.write(SECRET_SETTING, encrypted.toString('base64'));
  }

  async clear(): Promise<void> {
    this.settings.remove(SECRET_SETTING);
  }
}
