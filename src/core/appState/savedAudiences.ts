// Saved audiences: a name, a state, filters and list controls, kept in app state so they survive a
// dataset being replaced. Filters are stored as the JSON the user built, validated by the same rules
// as a live query before they are written: a saved audience always runs.
import { normalizeAudience } from '../../shared/audienceRequest';
import type { DatasetRef, Filter, SavedAudience } from '../../shared/contract';
import { listControlsInput, type ListControlsInput } from '../../shared/listControls';
import { AppError } from '../../shared/errors';
import type { Db, Statement } from '../sqlite';
import { displayName } from './displayName';

interface Row {
  id: number;
  name: string;
  state: string;
  filters: string;
  controls: string;
  createdAt: string;
  updatedAt: string;
  dataset: string | null;
}

const COLUMNS = 'id, name, state, filters, controls, created_at AS createdAt, updated_at AS updatedAt, dataset';

function toAudience(row: Row): SavedAudience {
  return {
    ...row,
    filters: JSON.parse(row.filters) as Filter[],
    controls: JSON.parse(row.controls) as ListControlsInput,
    // The dataset it was saved on: a count on another dataset says so (README "Nothing lost").
    dataset: row.dataset ? (JSON.parse(row.dataset) as DatasetRef) : null,
  };
}

const cleanName = (name: string): string => displayName(name, 'An audience name');

export class SavedAudienceStore {
  private readonly stmt: Record<string, Statement>;

  constructor(
    private readonly db: Db,
    private readonly currentDataset: () => DatasetRef | null = () => null,
  ) {
    this.stmt = {
      list: db.prepare(`SELECT ${COLUMNS} FROM saved_audiences ORDER BY name COLLATE NOCASE, id`),
      byId: db.prepare(`SELECT ${COLUMNS} FROM saved_audiences WHERE id = ?`),
      // Names differing only in case would look like duplicates in the list, so they count as one.
      clash: db.prepare('SELECT id FROM saved_audiences WHERE name = ? COLLATE NOCASE AND id != ?').pluck(),
      insert: db.prepare(
        'INSERT INTO saved_audiences (name, state, filters, controls, created_at, updated_at, dataset) VALUES (?, ?, ?, ?, ?, ?, ?)',
      ),
      rename: db.prepare('UPDATE saved_audiences SET name = ?, updated_at = ? WHERE id = ?'),
      replace: db.prepare(
        'UPDATE saved_audiences SET name = ?, state = ?, filters = ?, controls = ?, updated_at = ?, dataset = ? WHERE id = ?',
      ),
      delete: db.prepare('DELETE FROM saved_audiences WHERE id = ?'),
    };
  }

  list(): SavedAudience[] {
    return (this.stmt.list!.all() as Row[]).map(toAudience);
  }

  get(id: number): SavedAudience {
    const row = this.stmt.byId!.get(id) as Row | undefined;
    if (!row) throw new AppError('not_found', `No saved audience with id ${id}.`, 'id');
    return toAudience(row);
  }

  /**
   * Saves a new audience; a name already in use is refused rather than silently overwritten, unless
   * `replace` says the user confirmed: then the audience of that name (whatever its case) takes the
   * new state, filters and list controls and keeps its id, so whatever names it (`saved:<id>`) follows.
   */
  save(input: { name: string; state: string; filters: Filter[] } & ListControlsInput, options: { replace?: boolean } = {}): SavedAudience {
    const { name: rawName, ...audience } = input;
    const name = cleanName(rawName);
    const normalized = normalizeAudience(audience);
    const controls = JSON.stringify(listControlsInput(normalized.listControls));
    // Field names in their catalog spelling, values as the user gave them (so the builder shows them back).
    const filters: Filter[] = input.filters.map(([, values], i) => [normalized.filters[i]!.field, values]);
    const now = new Date().toISOString();
    const id = this.db.transaction(() => {
      const dataset = this.currentDataset();
      const datasetText = dataset ? JSON.stringify(dataset) : null;
      const existing = this.stmt.clash!.get(name, -1) as number | undefined;
      if (existing !== undefined && options.replace) {
        this.stmt.replace!.run(name, normalized.state, JSON.stringify(filters), controls, now, datasetText, existing);
        return existing;
      }
      this.assertFree(name, -1);
      const values = [name, normalized.state, JSON.stringify(filters), controls, now, now, datasetText];
      return Number(this.stmt.insert!.run(...values).lastInsertRowid);
    })();
    return this.get(id);
  }

  rename(id: number, newName: string): SavedAudience {
    const name = cleanName(newName);
    this.db.transaction(() => {
      this.get(id);
      this.assertFree(name, id);
      this.stmt.rename!.run(name, new Date().toISOString(), id);
    })();
    return this.get(id);
  }

  delete(id: number): void {
    if (this.stmt.delete!.run(id).changes === 0) throw new AppError('not_found', `No saved audience with id ${id}.`, 'id');
  }

  private assertFree(name: string, exceptId: number): void {
    if (this.stmt.clash!.get(name, exceptId) !== undefined)
      throw new AppError('invalid_request', `An audience named "${name}" already exists; choose another name.`, 'name');
  }
}
