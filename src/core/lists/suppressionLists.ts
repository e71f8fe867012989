// Suppression lists: files of PIDs, phones and addresses the analyst imports so that `exclude:
// ["list:<id>"]` leaves those people out. App state keeps a name, counts, the rejects' line numbers
// and reasons, and a keyed hash of each normalised value (listHash.ts), never a value. An import is
// one transaction: a file that cannot be read or names nobody stores nothing.
import { PickedFiles } from '../fs/pickedFiles';
import { randomBytes } from 'node:crypto';
import { basename, resolve } from 'node:path';
import type { SuppressionListInfo } from '../../shared/contract';
import { AppError } from '../../shared/errors';
import type { AudienceEngine, RecordMatcher } from '../audience/contract/engine';
import type { Db, Statement } from '../sqlite';
import { readListFile, type ListFileContent } from './listFile';
import { listKey } from '../dataset/format/listKeys';
import { ListHasher, type ListKeys, type ValueKind } from './listHash';
import { normalizeAddress, normalizePhone, normalizePid } from '../../shared/normalize';
import { displayName } from '../appState/displayName';

/** Rejects kept with a list (its info shows the first few); `rejected` counts them all. */
const REJECTS_STORED = 20;

/** The record fields a list's matcher reads, in this order. */
export const LIST_MATCH_FIELDS = ['PID', 'PHONE', 'PHONE2', 'PHONE3', 'ADDRESS', 'ZIP'] as const;

/** A stored list: its info as the contract gives it, the rejects as JSON text, without `matched` (counted per dataset). */
interface Row extends Omit<SuppressionListInfo, 'rejects' | 'matched'> {
  rejects: string;
}

const COLUMNS = 'id, name, created_at AS createdAt, rows, pids, phones, addresses, rejected, rejects';

const cleanName = (name: string): string => displayName(name, 'A list name');

export class SuppressionLists {
  private readonly stmt: Record<string, Statement>;
  private readonly hasher: ListHasher;
  /** Files the user picked in the app (lists/pick); only these may the app import. */
  private readonly picked = new PickedFiles('"Choose file"; only chosen files can be imported.');
  /** matched, by list id and dataset source: listing is cheap after the first count. */
  private readonly matchedCache = new Map<string, number>();

  /** `engine` is the current dataset's engine, or null while none is open. */
  constructor(
    private readonly db: Db,
    private readonly engine: () => AudienceEngine | null,
  ) {
    this.hasher = new ListHasher(db);
    this.stmt = {
      list: db.prepare(`SELECT ${COLUMNS} FROM suppression_lists ORDER BY name COLLATE NOCASE, id`),
      byId: db.prepare(`SELECT ${COLUMNS} FROM suppression_lists WHERE id = ?`),
      clash: db.prepare('SELECT id FROM suppression_lists WHERE name = ? COLLATE NOCASE').pluck(),
      insert: db.prepare(
        'INSERT INTO suppression_lists (id, name, created_at, rows, pids, phones, addresses, rejected, rejects, key_hashes) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
      ),
      insertValue: db.prepare('INSERT OR IGNORE INTO suppression_values (list_id, hash) VALUES (?, ?)'),
      values: db.prepare('SELECT hash FROM suppression_values WHERE list_id = ?').pluck(),
      keyHashes: db.prepare('SELECT key_hashes FROM suppression_lists WHERE id = ?').pluck(),
      deleteValues: db.prepare('DELETE FROM suppression_values WHERE list_id = ?'),
      delete: db.prepare('DELETE FROM suppression_lists WHERE id = ?'),
    };
  }

  /** After a restore: the lists, their secret and their counts are the backup's now. */
  reloaded(): void {
    this.hasher.reset();
    this.matchedCache.clear();
  }

  /** Files the user chose in the app (dialog or inbox): the app imports only these. */
  allow(paths: readonly string[]): string[] {
    return this.picked.allow(paths);
  }

  /** import, for the app: only a file lists/pick handed out, and not through a link. */
  importPicked(path: string, name: string): Promise<SuppressionListInfo> {
    this.picked.assert([path]);
    return this.import(path, name);
  }

  /**
   * Reads a list file and stores its values' hashes under a new list, all or nothing. A symbolic
   * link is followed only when asked (the CLI, whose user typed the path).
   */
  async import(path: string, name: string, followLinks = false): Promise<SuppressionListInfo> {
    const clean = cleanName(name);
    this.assertFree(clean);
    return this.store(clean, readListFile(resolve(path), followLinks), basename(path));
  }

  /** Stores read (or gathered) values under a new list, all or nothing: match and append keeps its matched people so. */
  async importContent(name: string, content: ListFileContent, source: string): Promise<SuppressionListInfo> {
    const clean = cleanName(name);
    this.assertFree(clean);
    return this.store(clean, content, source);
  }

  private async store(clean: string, content: ListFileContent, source: string): Promise<SuppressionListInfo> {
    const kept = content.pids.size + content.phones.size + content.addresses.size;
    if (kept === 0) {
      const first = content.rejects[0];
      throw new AppError(
        'invalid_request',
        `No row of ${source} holds a PID, phone or address (${content.rows} rows` +
          (first ? `; line ${first.line}: ${first.reason}` : '') +
          '); nothing was imported.',
        'file',
      );
    }
    const id = randomBytes(8).toString('hex');
    const hashes: Buffer[] = [];
    const add = (kind: ValueKind, values: Set<string>) => {
      for (const v of values) hashes.push(Buffer.from(this.hasher.hash(kind, v), 'latin1'));
    };
    add('pid', content.pids);
    add('phone', content.phones);
    add('address', content.addresses);
    const keys = (values: Set<string>) => Uint32Array.from(values, (v) => listKey(v));
    const sealed = this.hasher.seal({ pid: keys(content.pids), phone: keys(content.phones), address: keys(content.addresses) });
    this.db.transaction(() => {
      this.assertFree(clean);
      this.stmt.insert!.run(
        id,
        clean,
        new Date().toISOString(),
        content.rows,
        content.pids.size,
        content.phones.size,
        content.addresses.size,
        content.rejected,
        JSON.stringify(content.rejects.slice(0, REJECTS_STORED)),
        sealed,
      );
      for (const h of hashes) this.stmt.insertValue!.run(id, h);
    })();
    return this.get(id);
  }

  /** Every list, by name, each with how many people of the current dataset it names. */
  async list(): Promise<SuppressionListInfo[]> {
    const rows = this.stmt.list!.all() as Row[];
    const out: SuppressionListInfo[] = [];
    for (const row of rows) out.push(await this.info(row));
    return out;
  }

  async get(id: string): Promise<SuppressionListInfo> {
    return this.info(this.row(id));
  }

  delete(id: string): void {
    const removed = this.db.transaction(() => {
      this.stmt.deleteValues!.run(id);
      return this.stmt.delete!.run(id).changes;
    })();
    if (removed === 0) throw new AppError('not_found', `No suppression list with id ${JSON.stringify(id.slice(0, 64))}.`, 'id');
    for (const key of [...this.matchedCache.keys()]) if (key.startsWith(`${id}\n`)) this.matchedCache.delete(key);
  }

  /**
   * The people a list names, for `exclude: ["list:<id>"]`: a record matches when its PID, one of
   * its three phones, or its address and ZIP, normalised and hashed, is in the list. Undefined for
   * an unknown id. The list's hashes are read when the matcher is first asked.
   */
  matcher(id: string): RecordMatcher | undefined {
    const row = this.stmt.byId!.get(id) as Row | undefined;
    if (!row) return undefined;
    const hasher = this.hasher;
    let hashes: Set<string> | null = null;
    const load = (): Set<string> => (hashes ??= new Set((this.stmt.values!.all(id) as Buffer[]).map((b) => b.toString('latin1'))));
    const { pids, phones, addresses } = row;
    const has = (kind: ValueKind, value: string | null) => value !== null && load().has(hasher.hash(kind, value));
    const readSealed = this.stmt.keyHashes!;
    let keys: ListKeys | null | undefined;
    return {
      key: `list:${id}`,
      fields: LIST_MATCH_FIELDS,
      // A list imported before list keys has none: its matcher reads every record.
      // Read when first asked, like the hashes: a matcher is made for every request that excludes the
      // list, and an engine that kept the state's answer never asks (a million phones seal to 4 MB).
      listKeys: () => {
        if (keys === undefined) {
          const sealed = readSealed.get(id) as Buffer | null;
          keys = sealed ? hasher.open(sealed) : null;
        }
        return keys;
      },
      matches(values) {
        const [pid, phone1, phone2, phone3, address, zip] = values;
        if (pids > 0 && pid !== undefined && has('pid', normalizePid(pid))) return true;
        if (phones > 0)
          for (const phone of [phone1, phone2, phone3])
            if (phone !== undefined && phone !== '' && has('phone', normalizePhone(phone))) return true;
        return addresses > 0 && address !== undefined && zip !== undefined && has('address', normalizeAddress(address, zip));
      },
    };
  }

  private row(id: string): Row {
    const row = this.stmt.byId!.get(id) as Row | undefined;
    if (!row) throw new AppError('not_found', `No suppression list with id ${JSON.stringify(id.slice(0, 64))}.`, 'id');
    return row;
  }

  private async info(row: Row): Promise<SuppressionListInfo> {
    const { rejects, ...rest } = row;
    return { ...rest, rejects: JSON.parse(rejects) as SuppressionListInfo['rejects'], matched: await this.matched(row.id) };
  }

  /** People of the current dataset the list names (null without one), counted once per list and dataset. */
  private async matched(id: string): Promise<number | null> {
    const engine = this.engine();
    if (!engine) return null;
    const key = `${id}\n${(await engine.summary()).source}`;
    let n = this.matchedCache.get(key);
    if (n === undefined) {
      n = await engine.countMatching(this.matcher(id)!);
      this.matchedCache.set(key, n);
    }
    return n;
  }

  /** Throws, naming `name`, when a list of this name exists or the name is not one (before work that ends in storing a list). */
  checkName(name: string): void {
    this.assertFree(cleanName(name));
  }

  private assertFree(name: string): void {
    if (this.stmt.clash!.get(name) !== undefined)
      throw new AppError('invalid_request', `A list named "${name}" already exists; choose another name.`, 'name');
  }
}
