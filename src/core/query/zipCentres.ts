// Where a ZIP lies, for a `near` control given as a ZIP instead of a point: the mean position of the
// people whose ZIP it is, found through its code in the ZIP vector of every state, worked out once a
// ZIP and remembered (a ZIP the file does not hold is remembered as unknown).
import { fieldIndex } from '../../shared/fields';
import type { Dataset, StateRange } from '../dataset/read/dataset';

export type ZipCentre = { lat: number; lon: number } | undefined;

export class ZipCentres {
  private readonly known = new Map<string, ZipCentre>();

  constructor(
    private readonly dataset: Dataset,
    /** Each position's latitude and longitude pair in a state (the engine's kept arrays). */
    private readonly coordinatesOf: (range: StateRange) => Float64Array,
  ) {}

  of(zip: string): ZipCentre {
    if (!this.known.has(zip)) this.known.set(zip, this.find(zip));
    return this.known.get(zip);
  }

  private find(zip: string): ZipCentre {
    const zipField = fieldIndex('ZIP');
    const code = this.dataset.columnInfo(zipField).dict?.indexOf(zip) ?? -1;
    if (code < 0) return undefined;
    let lat = 0;
    let lon = 0;
    let people = 0;
    for (const range of this.dataset.stateCounts()) {
      const data = this.dataset.column(zipField, range).data;
      let coordinates: Float64Array | undefined;
      for (let pos = range.first, end = range.first + range.count; pos < end; pos++) {
        if (data[pos] !== code) continue;
        // Only a state that holds the ZIP reads its coordinates.
        coordinates ??= this.coordinatesOf(range);
        lat += coordinates[(pos - range.first) * 2]!;
        lon += coordinates[(pos - range.first) * 2 + 1]!;
        people++;
      }
    }
    return people > 0 ? { lat: lat / people, lon: lon / people } : undefined;
  }
}
