// Asynchronous, because the OS keychain is (safeStorage's synchronous calls are deprecated).
// Where the ClickHouse user and password of the "Data source" setting are kept. The core never
// decides how: the desktop app encrypts them with the OS keychain (Electron's safeStorage,
// src/main/safeStorageSecretStore.ts) and browser mode and the CLI keep them in an owner-only file
// in the home folder (fileSecretStore.ts). src/core never imports electron, so this is the seam.
import type { ClickHouseCredentials } from '../clickhouse/connection';

export interface SecretStore {
  /** Says where the secret lives, for the Data source screen ("the OS keychain", "a file only you can read: …"). */
  readonly description: string;
  /** The stored credentials, or null when none are; a clear `unavailable` AppError when they cannot be read back. */
  load(): Promise<ClickHouseCredentials | null>;
  /** Keeps credentials (replacing any); refuses with a clear AppError when it cannot keep them safely. */
  save(credentials: ClickHouseCredentials): Promise<void>;
  /** Forgets them; nothing when none are stored. */
  clear(): Promise<void>;
}
