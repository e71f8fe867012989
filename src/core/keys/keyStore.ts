// API keys: random 256-bit secrets shown once, stored only as SHA-256 hashes (a fast hash is right
// for high-entropy secrets; there is nothing to brute-force). Every check reads the database, so a
// key revoked by the app or the CLI fails on the very next request.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { ApiKeyInfo } from '../../shared/contract';
import { AppError } from '../../shared/errors';
import type { Db, Statement } from '../sqlite';

export type { ApiKeyInfo };

export interface VerifiedKey {
  id: string;
  name: string;
}

const KEY_PREFIX = 'adk_';
const KEY_PATTERN = /^adk_[A-Za-z0-9_-]{43}$/;
const NAME_PATTERN = /^[\p{L}\p{N} ._@()-]{1,64}$/u;
// Recording every use would turn each read into a write; once a minute per key is precise enough.
// The write waits until the request that used the key has had its answer: a commit syncs the app
// state to disk, which took up to a tenth of a second while a background verify read the dataset.
const LAST_USE_RESOLUTION_MS = 60_000;

const hashKey = (key: string): Buffer => createHash('sha256').update(key, 'utf8').digest();

/** A presented key's hash as activeHashes lists them. */
export const keyHash = (key: string): string => hashKey(key).toString('base64url');

export class KeyStore {
  private readonly stmt: Record<string, Statement>;
  private readonly lastRecorded = new Map<string, number>();
  /** Last uses not yet written (key id to time), and the turn of the event loop that writes them. */
  private readonly unrecorded = new Map<string, string>();
  private recording: NodeJS.Immediate | null = null;

  constructor(private readonly db: Db) {
    this.stmt = {
      insert: db.prepare('INSERT INTO api_keys (id, name, prefix, hash, created_at) VALUES (?, ?, ?, ?, ?)'),
      list: db.prepare(
        'SELECT id, name, prefix, created_at AS createdAt, last_used_at AS lastUsedAt, revoked_at AS revokedAt FROM api_keys ORDER BY created_at, id',
      ),
      byHash: db.prepare('SELECT id, name, hash FROM api_keys WHERE hash = ? AND revoked_at IS NULL'),
      activeHashes: db.prepare('SELECT hash FROM api_keys WHERE revoked_at IS NULL').pluck(),
      revoke: db.prepare('UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL'),
      exists: db.prepare('SELECT revoked_at FROM api_keys WHERE id = ?'),
      touch: db.prepare('UPDATE api_keys SET last_used_at = ? WHERE id = ?'),
    };
  }

  /** Creates a key; the returned secret is never stored and cannot be shown again. */
  /** Keys made or revoked through this store so far: a copy of activeHashes older than this is stale. */
  changes = 0;

  create(name: string): { info: ApiKeyInfo; key: string } {
    const trimmed = name.trim();
    if (!NAME_PATTERN.test(trimmed))
      throw new AppError('invalid_request', 'A key name is 1 to 64 letters, digits, spaces or . _ @ ( ) -.', 'name');
    const key = KEY_PREFIX + randomBytes(32).toString('base64url');
    const id = randomBytes(6).toString('hex');
    const createdAt = new Date().toISOString();
    const prefix = key.slice(0, 8);
    this.stmt.insert!.run(id, trimmed, prefix, hashKey(key), createdAt);
    this.changes++;
    return { info: { id, name: trimmed, prefix, createdAt, lastUsedAt: null, revokedAt: null }, key };
  }

  list(): ApiKeyInfo[] {
    this.recordUses();
    return this.stmt.list!.all() as ApiKeyInfo[];
  }

  revoke(id: string): void {
    const row = this.stmt.exists!.get(id) as { revoked_at: string | null } | undefined;
    if (!row) throw new AppError('not_found', `No key with id ${JSON.stringify(id.slice(0, 40))}.`, 'id');
    this.stmt.revoke!.run(new Date().toISOString(), id);
    this.changes++;
  }

  /** The key's owner if the presented secret is a live key; null for missing, unknown or revoked. */
  /**
   * The stored hashes of the keys not revoked, as text: what lets the server tell a presented key
   * that may be valid from one that cannot be, without a lookup (keyHash gives a presented key's).
   */
  activeHashes(): Set<string> {
    return new Set((this.stmt.activeHashes!.all() as Buffer[]).map((h) => h.toString('base64url')));
  }

  verify(presented: string | undefined): VerifiedKey | null {
    if (!presented || !KEY_PATTERN.test(presented)) return null;
    const hash = hashKey(presented);
    const row = this.stmt.byHash!.get(hash) as { id: string; name: string; hash: Buffer } | undefined;
    if (!row || !timingSafeEqual(row.hash, hash)) return null;
    const now = Date.now();
    if (now - (this.lastRecorded.get(row.id) ?? 0) >= LAST_USE_RESOLUTION_MS) {
      this.lastRecorded.set(row.id, now);
      this.unrecorded.set(row.id, new Date(now).toISOString());
      this.recording ??= setImmediate(() => this.recordUses());
    }
    return { id: row.id, name: row.name };
  }

  /** Writes the last uses waiting (after the answers that made them, on list(), and at shutdown). */
  recordUses(): void {
    if (this.recording) clearImmediate(this.recording);
    this.recording = null;
    if (this.unrecorded.size === 0 || !this.db.open) return;
    this.db.transaction(() => {
      for (const [id, at] of this.unrecorded) this.stmt.touch!.run(at, id);
    })();
    this.unrecorded.clear();
  }
}
