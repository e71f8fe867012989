// The keyed hash a suppression list keeps instead of its values: HMAC-SHA256 with a secret of this
// home folder (32 random bytes, made on first use, kept in app state, never logged or returned) of
// `kind:value`, the value normalised (normalize.ts). A phone has only 10^10 possible values, so a
// plain hash would be undone by trying them all; without the secret a stored hash says nothing.
// Cut to 16 bytes: 128 bits leave no chance of two values meeting by accident (birthday bound
// 2^64) and halve what a list of millions stores. The secret lives in the same file as the hashes,
// so it protects the hashes when they travel without it (a copied table, a backup of part of the
// state), not against someone holding the whole app-state file: that file is owner-only (0600).
import { createCipheriv, createDecipheriv, createHmac, createSecretKey, hkdfSync, randomBytes, type KeyObject } from 'node:crypto';
import type { Db } from '../sqlite';

/** `person` (consumer opt-outs): a name at an address, `LAST|FIRST|LINE|ZIP`. */
export type ValueKind = 'pid' | 'phone' | 'address' | 'person';

/** Bytes of each stored hash. */
export const HASH_BYTES = 16;

/** A list's list keys (dataset/format/listKeys.ts) by kind of value. */
export interface ListKeys {
  pid: Uint32Array;
  phone: Uint32Array;
  address: Uint32Array;
}

const KINDS = ['pid', 'phone', 'address'] as const;
/** The first byte of a sealed blob: how it was sealed. */
const SEALED_V1 = 1;
const IV_BYTES = 12;
const TAG_BYTES = 16;

export class ListHasher {
  private key: KeyObject | null = null;
  private sealKey: KeyObject | null = null;

  constructor(private readonly db: Db) {}

  /** The hash of a normalised value, as a 16-character binary ('latin1') string: cheap to keep in a Set. */
  hash(kind: ValueKind, value: string): string {
    this.key ??= this.loadKey();
    return createHmac('sha256', this.key).update(`${kind}:${value}`, 'utf8').digest().toString('latin1', 0, HASH_BYTES);
  }

  /**
   * A list's list keys, sealed: AES-256-GCM under a key derived from the home's secret (HKDF), so a
   * stored list never holds a 32-bit hash of a phone, which trying every phone would undo.
   */
  seal(keys: ListKeys): Buffer {
    const plain = Buffer.alloc(4 * (KINDS.length + KINDS.reduce((n, k) => n + keys[k].length, 0)));
    let at = 0;
    for (const k of KINDS) at = plain.writeUInt32LE(keys[k].length, at);
    for (const k of KINDS) for (const v of keys[k]) at = plain.writeUInt32LE(v, at);
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.loadSealKey(), iv);
    const sealed = Buffer.concat([cipher.update(plain), cipher.final()]);
    return Buffer.concat([Buffer.from([SEALED_V1]), iv, cipher.getAuthTag(), sealed]);
  }

  /** The list keys of a sealed blob, or null when it does not open (another home's secret, damage): the list then reads every record. */
  open(blob: Uint8Array): ListKeys | null {
    if (blob.length < 1 + IV_BYTES + TAG_BYTES || blob[0] !== SEALED_V1) return null;
    const bytes = Buffer.from(blob.buffer, blob.byteOffset, blob.byteLength);
    let plain: Buffer;
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.loadSealKey(), bytes.subarray(1, 1 + IV_BYTES));
      decipher.setAuthTag(bytes.subarray(1 + IV_BYTES, 1 + IV_BYTES + TAG_BYTES));
      plain = Buffer.concat([decipher.update(bytes.subarray(1 + IV_BYTES + TAG_BYTES)), decipher.final()]);
    } catch {
      return null;
    }
    if (plain.length < 4 * KINDS.length) return null;
    const counts = KINDS.map((_, i) => plain.readUInt32LE(4 * i));
    if (4 * (KINDS.length + counts.reduce((a, b) => a + b, 0)) !== plain.length) return null;
    const out = {} as ListKeys;
    let at = 4 * KINDS.length;
    KINDS.forEach((k, i) => {
      out[k] = new Uint32Array(counts[i]!);
      for (let j = 0; j < counts[i]!; j++, at += 4) out[k][j] = plain.readUInt32LE(at);
    });
    return out;
  }

  /** Forgets the loaded secret (app state was restored from a backup, which brings its own). */
  reset(): void {
    this.key = null;
    this.sealKey = null;
  }

  /** The sealing key: the home's secret through HKDF, apart from the HMAC key it also keys. */
  private loadSealKey(): KeyObject {
    if (!this.sealKey) {
      this.key ??= this.loadKey();
      const derived = hkdfSync('sha256', this.key.export(), Buffer.alloc(0), 'audience-desk list keys v1', 32);
      this.sealKey = createSecretKey(Buffer.from(derived));
    }
    return this.sealKey;
  }

  /** The home's secret: made once; a second process making it at the same moment keeps the first one's. */
  private loadKey(): KeyObject {
    this.db.prepare('INSERT OR IGNORE INTO list_secret (id, secret) VALUES (1, ?)').run(randomBytes(32));
    const secret = this.db.prepare('SELECT secret FROM list_secret WHERE id = 1').pluck().get() as Buffer;
    return createSecretKey(secret);
  }
}
