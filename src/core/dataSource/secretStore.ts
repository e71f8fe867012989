// Asynchronous, because the OS keychain is (safeStorage's synchronous calls are deprecated).
// Where the ClickHouse user and password of the "Data source" setting are kept. The core never
// decides how: the desktop app encrypts them with the OS keychain (Electron's safeStorage,
// src/main/safeStorageSecretStore.ts) and browser mode and the CLI keep them in an owner-only file
// in the home folder (fileSecretStore.ts). src/core never imports electron, so this is the seam.
// The password is kept together with the address it was typed for (issue 39): settings can be
// replaced by a restore, this record cannot, and passwordBinding.ts sends it nowhere else.
import type { ClickHouseCredentials } from '../clickhouse/connection';

/** A stored password with the user and the address (as typed) it belongs to. */
export interface StoredClickHouseSecret extends ClickHouseCredentials {
  /** Absent for one stored before passwords were bound to an address: it is never sent (passwordBinding.ts). */
  url?: string;
  /** The fallback nodes typed with it, which may be sent it too; absent when none were (passwordBinding.ts). */
  fallbackUrls?: string[];
}

export interface SecretStore {
  /** Says where the secret lives, for the Data source screen ("the OS keychain", "a file only you can read: …"). */
  readonly description: string;
  /** The stored secret, or null when none is; a clear `unavailable` AppError when it cannot be read back. */
  load(): Promise<StoredClickHouseSecret | null>;
  /** Keeps a secret (replacing any); refuses with a clear AppError when it cannot keep it safely. */
  save(secret: StoredClickHouseSecret): Promise<void>;
  /** Forgets it; nothing when none is stored. */
  clear(): Promise<void>;
}

/** A list of addresses as a stored record holds them. */
export const isTextList = (v: unknown): v is string[] => Array.isArray(v) && v.every((x) => typeof x === 'string');

/** What a secret store writes: the CLI's {"user", "password"}, the address, and the fallback nodes only when there are some. */
export function secretRecord(secret: StoredClickHouseSecret): Record<string, unknown> {
  const fallbacks = secret.fallbackUrls?.length ? { fallbackUrls: secret.fallbackUrls } : {};
  return { user: secret.username, password: secret.password, url: secret.url, ...fallbacks };
}
