// The keyed hash a suppression list keeps instead of its values: HMAC-SHA256 with a secret of this
// home folder (32 random bytes, made on first use, kept in app state, never logged or returned) of
// `kind:value`, the value normalised (normalize.ts). A phone has only 10^10 possible values, so a
// plain hash would be undone by trying them all; without the secret a stored hash says nothing.
// Cut to 16 bytes: 128 bits leave no chance of two values meeting by accident (birthday bound
// 2^64) and halve what a list of millions stores. The secret lives in the same file as the hashes,
// so it protects the hashes when they travel without it (a copied table, a backup of part of the
// state), not against someone holding the whole app-state file: that file is owner-only (0600).
import { createHmac, createSecretKey, randomBytes, type KeyObject } from 'node:crypto';
import type { Db } from '../sqlite';

export type ValueKind = 'pid' | 'phone' | 'address';

/** Bytes of each stored hash. */
export const HASH_BYTES = 16;

export class ListHasher {
  private key: KeyObject | null = null;

  constructor(private readonly db: Db) {}

  /** The hash of a normalised value, as a 16-character binary ('latin1') string: cheap to keep in a Set. */
  hash(kind: ValueKind, value: string): string {
    this.key ??= this.loadKey();
    return createHmac('sha256', this.key).update(`${kind}:${value}`, 'utf8').digest().toString('latin1', 0, HASH_BYTES);
  }

  /** Forgets the loaded secret (app state was restored from a backup, which brings its own). */
  reset(): void {
    this.key = null;
  }

  /** The home's secret: made once; a second process making it at the same moment keeps the first one's. */
  private loadKey(): KeyObject {
    this.db.prepare('INSERT OR IGNORE INTO list_secret (id, secret) VALUES (1, ?)').run(randomBytes(32));
    const secret = this.db.prepare('SELECT secret FROM list_secret WHERE id = 1').pluck().get() as Buffer;
    return createSecretKey(secret);
  }
}
