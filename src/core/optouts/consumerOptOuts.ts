// Consumer opt-outs (docs/optouts.md): people who asked not to be sold or shown. Each import of a file
// keeps, as suppression lists do (lists/listHash.ts), a keyed hash of each value and never a value:
// `pid:`, `phone:`, and `person:LAST|FIRST|LINE|ZIP` (a name at an address). Every audience request
// carries them as an exclusion that runs before any other step (resolveControls.ts), so no count,
// page, export, profile, lookalike, breakdown, cross-tab, map or match shows an opted-out person, on
// either engine, in whichever dataset is current. The matcher's key names the imports in force, so a
// new or removed import (from this process or another on the same home) takes effect at the next request.
import { PickedFiles } from '../fs/pickedFiles';
import { createHash, randomBytes } from 'node:crypto';
import { basename, resolve } from 'node:path';
import type { OptOutImport } from '../../shared/customerFiles';
import { AppError } from '../../shared/errors';

import { normalizeAddress, normalizePhone, normalizePid } from '../../shared/normalize';
import type { AudienceEngine, RecordMatcher } from '../audience/contract/engine';
import { listKey } from '../dataset/format/listKeys';
import { ListHasher, type ListKeys } from '../lists/listHash';
import { readCustomerFile } from '../match/customerFile';
import { LIST_MATCH_FIELDS } from '../lists/suppressionLists';
import { MATCH_READ_FIELDS } from '../match/matchPeople';
import type { Withheld } from '../match/matchTypes';
import { normalizeName } from '../match/personNames';
import type { Db, Statement } from '../sqlite';

export type { OptOutImport };

interface InForce {
  id: string;
  key_hashes: Buffer | null;
  pids: number;
  phones: number;
  people: number;
}

const REJECTS_STORED = 20;
const COLUMNS = 'id, created_at AS createdAt, rows, pids, phones, people, rejected, rejects, matched, dataset, removed_at AS removedAt';

/** A record's person value: `LAST|FIRST|LINE|ZIP`, or null without a last name, a first name or an address. */
export function personValue(first: string, last: string, address: string | null): string | null {
  return address === null || first === '' || last === '' ? null : `${last}|${first}|${address}`;
}

export class ConsumerOptOuts {
  private readonly stmt: Record<string, Statement>;
  private readonly hasher: ListHasher;
  /** The matcher of the imports in force, by their key; replaced when they change. */
  private current: { key: string; matcher: RecordMatcher | undefined } | null = null;
  /** Changed by a restore: the same imports' ids may come back with another home's secret. */
  private epoch = randomBytes(4).toString('hex');
  /** Files the user picked in the app (optouts/pick); only these may the app import. */
  private readonly picked = new PickedFiles('"Choose a file"; only chosen files can be read.');

  constructor(
    private readonly db: Db,
    private readonly engine: () => AudienceEngine | null,
  ) {
    this.hasher = new ListHasher(db);
    this.stmt = {
      list: db.prepare(`SELECT ${COLUMNS} FROM optout_imports ORDER BY created_at, id`),
      byId: db.prepare(`SELECT ${COLUMNS} FROM optout_imports WHERE id = ?`),
      inForce: db.prepare(`SELECT id, key_hashes, pids, phones, people FROM optout_imports WHERE removed_at IS NULL ORDER BY id`),
      insert: db.prepare(
        `INSERT INTO optout_imports (id, created_at, rows, pids, phones, people, rejected, rejects, matched, dataset, key_hashes)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, NULL, ?, ?)`,
      ),
      setMatched: db.prepare('UPDATE optout_imports SET matched = ? WHERE id = ?'),
      insertValue: db.prepare('INSERT OR IGNORE INTO optout_values (import_id, hash) VALUES (?, ?)'),
      values: db
        .prepare('SELECT v.hash FROM optout_values v JOIN optout_imports i ON i.id = v.import_id WHERE i.removed_at IS NULL')
        .pluck(),
      remove: db.prepare('UPDATE optout_imports SET removed_at = ? WHERE id = ? AND removed_at IS NULL'),
      deleteValues: db.prepare('DELETE FROM optout_values WHERE import_id = ?'),
    };
  }

  /** Files the user chose in the app (dialog or inbox): the app reads only these. */
  allow(paths: readonly string[]): string[] {
    return this.picked.allow(paths);
  }

  /** Refuses a file the app did not hand out by a pick. */
  assertPicked(path: string): void {
    this.picked.assert([path]);
  }

  /** import, for the app: only a file optouts/pick handed out, and not through a link. */
  importPicked(path: string): Promise<OptOutImport> {
    this.assertPicked(path);
    return this.import(path);
  }

  /** After a restore: the imports and their secret are the backup's now. */
  reloaded(): void {
    this.hasher.reset();
    this.current = null;
    this.epoch = randomBytes(4).toString('hex');
  }

  /**
   * Reads a file of people who opted out (the customer-file rules: PID, phones, name with address),
   * stores their hashes as one import, all or nothing, and counts whom it names in the current dataset.
   */
  async import(path: string, followLinks = false): Promise<OptOutImport> {
    const file = await readCustomerFile(resolve(path), followLinks, 'optouts');
    const pids = new Set<string>();
    const phones = new Set<string>();
    const people = new Set<string>();
    const addresses = new Set<string>();
    for (const row of file.rows) {
      if (row.pid !== null) pids.add(row.pid);
      for (const p of row.phones) phones.add(p);
      const person = personValue(row.name.first, row.name.last, row.address);
      if (person !== null) {
        people.add(person);
        addresses.add(row.address!);
      }
    }
    if (pids.size + phones.size + people.size === 0)
      throw new AppError(
        'invalid_request',
        `No row of ${basename(path)} names a person by PID, phone or name with address (${file.rows.length} rows); nothing was imported.`,
        'file',
      );
    const hashes = [
      ...[...pids].map((v) => this.hasher.hash('pid', v)),
      ...[...phones].map((v) => this.hasher.hash('phone', v)),
      ...[...people].map((v) => this.hasher.hash('person', v)),
    ];
    const keys = (values: Set<string>) => Uint32Array.from(values, (v) => listKey(v));
    const sealed = this.hasher.seal({ pid: keys(pids), phone: keys(phones), address: keys(addresses) });
    const id = randomBytes(8).toString('hex');
    const engine = this.engine();
    const dataset = engine ? basename((await engine.summary()).source) : null;
    this.db.transaction(() => {
      this.stmt.insert!.run(
        id,
        new Date().toISOString(),
        file.rows.length,
        pids.size,
        phones.size,
        people.size,
        file.rejected,
        JSON.stringify(file.rejects.slice(0, REJECTS_STORED)),
        dataset,
        sealed,
      );
      for (const h of hashes) this.stmt.insertValue!.run(id, Buffer.from(h, 'latin1'));
    })();
    if (engine) this.stmt.setMatched!.run(await engine.countMatching(this.only(id)), id);
    return this.get(id);
  }

  list(): OptOutImport[] {
    return (this.stmt.list!.all() as Array<OptOutImport & { rejects: string }>).map((r) => ({ ...r, rejects: JSON.parse(r.rejects) }));
  }

  get(id: string): OptOutImport {
    const row = this.stmt.byId!.get(id) as (OptOutImport & { rejects: string }) | undefined;
    if (!row) throw new AppError('not_found', `No opt-out import with id ${JSON.stringify(id.slice(0, 64))}.`, 'id');
    return { ...row, rejects: JSON.parse(row.rejects) as OptOutImport['rejects'] };
  }

  /** Stops an import's people being left out; its audit row stays, marked removed, its hashes go. */
  remove(id: string): OptOutImport {
    const removed = this.db.transaction(() => {
      const changes = this.stmt.remove!.run(new Date().toISOString(), id).changes;
      if (changes > 0) this.stmt.deleteValues!.run(id);
      return changes;
    })();
    if (removed === 0) {
      this.get(id);
      throw new AppError('invalid_request', `Opt-out import ${id} was already removed.`, 'id');
    }
    return this.get(id);
  }

  /** The opted-out people as a matcher over MATCH_READ_FIELDS; undefined when nobody is opted out. Cheap to ask every request. */
  matcher(): RecordMatcher | undefined {
    const inForce = this.stmt.inForce!.all() as InForce[];
    const key = `optouts:${createHash('sha256')
      .update(this.epoch + inForce.map((r) => r.id).join(','))
      .digest('hex')
      .slice(0, 16)}`;
    if (this.current?.key !== key) {
      this.current = { key, matcher: inForce.length === 0 ? undefined : this.build(key, inForce) };
    }
    return this.current.matcher;
  }

  /** A test of a record's MATCH_READ_FIELDS values: opted out. Null when nobody is. */
  withheld(): Withheld {
    const m = this.matcher();
    if (!m) return null;
    // The list keys the engine narrows opted-out candidates by narrow a match's the same way: only a
    // candidate holding one of them is read and asked (match/vectorMatch.ts).
    return Object.assign((values: ReadonlyArray<string | number>) => m.matches(values), { keys: () => m.listKeys?.() ?? null });
  }

  /** The matcher of one import alone (its `matched` count at import). */
  private only(id: string): RecordMatcher {
    const hashes = new Set(
      (this.db.prepare('SELECT hash FROM optout_values WHERE import_id = ?').pluck().all(id) as Buffer[]).map((b) => b.toString('latin1')),
    );
    const row = this.db.prepare('SELECT key_hashes, pids, phones, people FROM optout_imports WHERE id = ?').get(id) as InForce;
    const sealed = row.key_hashes;
    return this.matcherOf(`optout-import:${id}:${this.epoch}`, hashes, () => (sealed ? this.hasher.open(sealed) : null), row);
  }

  private build(key: string, inForce: InForce[]): RecordMatcher {
    let hashes: Set<string> | null = null;
    const load = () => (hashes ??= new Set((this.stmt.values!.all() as Buffer[]).map((b) => b.toString('latin1'))));
    let keys: ListKeys | null | undefined;
    const allKeys = (): ListKeys | null => {
      if (keys !== undefined) return keys;
      const opened = inForce.map((r) => (r.key_hashes ? this.hasher.open(r.key_hashes) : null));
      if (opened.some((k) => k === null)) return (keys = null);
      const join = (kind: keyof ListKeys) => Uint32Array.from(opened.flatMap((k) => [...k![kind]]));
      return (keys = { pid: join('pid'), phone: join('phone'), address: join('address') });
    };
    const sum = (k: 'pids' | 'phones' | 'people') => inForce.reduce((n, r) => n + r[k], 0);
    return this.matcherOf(key, { has: (h: string) => load().has(h) }, allKeys, {
      pids: sum('pids'),
      phones: sum('phones'),
      people: sum('people'),
    });
  }

  /** `counts`: how many values of each kind are in force; a kind with none is not hashed for each record. */
  private matcherOf(
    key: string,
    hashes: { has(h: string): boolean },
    listKeys: () => ListKeys | null,
    counts: { pids: number; phones: number; people: number },
  ): RecordMatcher {
    const hasher = this.hasher;
    return {
      key,
      // Names only when a name at an address is opted out: the first six are a suppression list's either way.
      fields: counts.people > 0 ? MATCH_READ_FIELDS : LIST_MATCH_FIELDS,
      listKeys,
      matches(values) {
        const [pid, phone1, phone2, phone3, address, zip, first, last] = values;
        const p = counts.pids > 0 ? normalizePid(String(pid ?? '')) : null;
        if (p !== null && hashes.has(hasher.hash('pid', p))) return true;
        if (counts.phones > 0)
          for (const phone of [phone1, phone2, phone3]) {
            if (phone === undefined || phone === '') continue;
            const n = normalizePhone(phone);
            if (n !== null && hashes.has(hasher.hash('phone', n))) return true;
          }
        if (counts.people === 0) return false;
        const at = address === undefined || zip === undefined ? null : normalizeAddress(address, zip);
        const f = normalizeName(String(first ?? ''));
        const l = normalizeName(String(last ?? ''));
        const full = personValue(f, l, at);
        if (full === null) return false;
        // An opt-out written with only an initial names the people of that initial at the address.
        return hashes.has(hasher.hash('person', full)) || hashes.has(hasher.hash('person', personValue(f[0]!, l, at)!));
      },
    };
  }
}
