// The code a string field gives each of its values: its dictionary code (codes in order of first
// appearance), or, once the field has more distinct values than the limit, its hash. The coding is
// apart from the vector it feeds (columnSet.ts) so that another thread can do it: the generator's
// worker codes the values it made, whose strings already carry their hashes, and sends codes
// instead of strings that the writing thread would have to hash again (generate/generateWorker.ts).
import { stringHash } from '../codec/columnVector';

/**
 * A copy of a string that does not share memory with the text it was cut from: a parser's cells
 * are slices of a whole read chunk, and a dictionary keeping a slice would keep the chunk alive.
 */
const ownCopy = (value: string): string => (' ' + value).slice(1);

/** Values compared one by one before the dictionary is asked (see `few`). */
const FEW = 16;

/** The codes or hashes of one string field's values, given in record order. */
export class StringCoder {
  /** Value to code, in order of first appearance; null once the field is hashed. */
  dict: Map<string, number> | null;
  /** The dictionary as it stood when the field passed the limit (the value that passed it included), until taken. */
  private retired: Map<string, number> | null = null;
  /** Values given a code since takeAdded(), when kept (`keepAdded`). */
  private added: string[] = [];
  // Consecutive records often repeat a value (flags, a household's shared fields, the state):
  // comparing with the last one is cheaper than a dictionary lookup.
  private lastValue: string | undefined;
  private lastCode = 0;
  // The first values, in code order: most string fields have a handful of values (flags, codes),
  // and comparing a fresh string with a few is cheaper than hashing it for the Map.
  private readonly few: string[] = [];

  constructor(
    private readonly limit: number,
    hashed: boolean,
    /** Keep the values given new codes, for takeAdded() (a coder whose codes go to another thread). */
    private readonly keepAdded = false,
  ) {
    this.dict = hashed ? null : new Map();
  }

  /**
   * Codes `count` values at src[start], src[start + stride], ... into out[outAt...]. Returns -1, or
   * the place (0-based among the `count`) of the value that took the field past the limit: from
   * that value on, out holds hashes, and the codes given before it (in this call and earlier ones)
   * are the caller's to turn into hashes with takeRetired().
   */
  codeStrided(
    src: readonly string[],
    start: number,
    stride: number,
    count: number,
    out: Float64Array | Uint32Array,
    outAt: number,
  ): number {
    const dict = this.dict;
    if (!dict) {
      for (let i = 0, j = start; i < count; i++, j += stride) out[outAt + i] = stringHash(src[j]!);
      return -1;
    }
    let lastValue = this.lastValue;
    let lastCode = this.lastCode;
    for (let i = 0, j = start; i < count; i++, j += stride) {
      let value = src[j]!;
      if (value === lastValue) {
        out[outAt + i] = lastCode;
        continue;
      }
      let code = this.find(value, dict);
      if (code === undefined) {
        code = dict.size;
        value = ownCopy(value);
        dict.set(value, code);
        if (this.keepAdded) this.added.push(value);
        if (code < FEW) this.few.push(value);
        if (dict.size > this.limit) {
          this.retire(dict);
          const passed = i;
          for (; i < count; i++, j += stride) out[outAt + i] = stringHash(src[j]!);
          return passed;
        }
      }
      lastValue = value;
      lastCode = code;
      out[outAt + i] = code;
    }
    this.lastValue = lastValue;
    this.lastCode = lastCode;
    return -1;
  }

  /**
   * The code of one value, given one if it is new; -1 when it is new and takes the field past the
   * limit (then takeRetired(); the field is hashed from here on, and codeOf must not be asked again).
   */
  codeOf(value: string): number {
    const dict = this.dict;
    if (!dict) throw new Error('A hashed field was asked for a dictionary code.');
    let code = this.find(value, dict);
    if (code !== undefined) return code;
    code = dict.size;
    dict.set(value, code);
    if (code < FEW) this.few.push(value);
    if (dict.size <= this.limit) return code;
    this.retire(dict);
    return -1;
  }

  /** The dictionary as it stood when the field passed the limit; once. */
  takeRetired(): Map<string, number> {
    const retired = this.retired;
    if (!retired) throw new Error('No dictionary was retired.');
    this.retired = null;
    return retired;
  }

  /** The values given new codes since the last call (empty when not kept). */
  takeAdded(): string[] {
    const added = this.added;
    if (added.length > 0) this.added = [];
    return added;
  }

  private retire(dict: Map<string, number>): void {
    this.retired = dict;
    this.dict = null;
    this.lastValue = undefined;
  }

  /** The code of a value already in the dictionary, else undefined. */
  private find(value: string, dict: Map<string, number>): number | undefined {
    if (dict.size > FEW) return dict.get(value);
    const few = this.few;
    for (let c = 0; c < few.length; c++) if (few[c] === value) return c;
    return undefined;
  }
}
