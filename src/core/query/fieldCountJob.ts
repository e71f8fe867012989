// The tally loops of a many-field count (fieldCounts.ts) and what the calling thread and the scan
// worker (scanWorker.ts) share to split one: units of fields (four one-byte fields, or one field),
// which both threads claim one at a time from a shared counter until none is left, as a split scan
// claims pieces of a state (scanJob.ts). Each unit's tallies have their own place in one array, so
// neither thread waits on the other but at the end, and a late or absent worker costs at most the
// unit it is on. One thread alone runs the same job with nobody to share it. A module of its own,
// since importing the worker's module would run it; pure functions of typed arrays.
import type { Vector } from '../dataset/codec/columnVector';

// One loop a vector type, as scanKernels.ts explains: V8 compiles an element access for the array
// types it has seen at that spot, and a profile's fields are one-byte vectors (a few two-byte).
//
// A one-byte vector is tallied into four tallies of 256 in turn: most people of a field hold one or
// two values, and adding one to the same counter again and again waits on the add before, each time.

/** Entries of a one-byte field's tally (four parts of 256). */
const TALLY8 = 1024;
/** Entries of a two-byte field's tally. */
const TALLY16 = 65536;
/** Entries of four one-byte fields' tallies (two parts of 256 each: even and odd steps). */
const TALLY8X4 = 2048;

function tallyRange8(data: Uint8Array, first: number, end: number, tally: Uint32Array): void {
  let i = first;
  for (; i + 3 < end; i += 4) {
    tally[data[i]!]!++;
    tally[256 + data[i + 1]!]!++;
    tally[512 + data[i + 2]!]!++;
    tally[768 + data[i + 3]!]!++;
  }
  for (; i < end; i++) tally[data[i]!]!++;
}

function tallyList8(data: Uint8Array, list: Uint32Array, tally: Uint32Array): void {
  const n = list.length;
  let k = 0;
  for (; k + 3 < n; k += 4) {
    tally[data[list[k]!]!]!++;
    tally[256 + data[list[k + 1]!]!]!++;
    tally[512 + data[list[k + 2]!]!]!++;
    tally[768 + data[list[k + 3]!]!]!++;
  }
  for (; k < n; k++) tally[data[list[k]!]!]!++;
}

// Four one-byte fields in one pass: each position (or list entry) is read once for the four, and the
// eight counters of a step (four fields, even and odd steps) are all different.

function tallyRange8x4(a: Uint8Array, b: Uint8Array, c: Uint8Array, d: Uint8Array, first: number, end: number, t: Uint32Array): void {
  let i = first;
  for (; i + 1 < end; i += 2) {
    t[a[i]!]!++;
    t[256 + b[i]!]!++;
    t[512 + c[i]!]!++;
    t[768 + d[i]!]!++;
    t[1024 + a[i + 1]!]!++;
    t[1280 + b[i + 1]!]!++;
    t[1536 + c[i + 1]!]!++;
    t[1792 + d[i + 1]!]!++;
  }
  for (; i < end; i++) {
    t[a[i]!]!++;
    t[256 + b[i]!]!++;
    t[512 + c[i]!]!++;
    t[768 + d[i]!]!++;
  }
}

function tallyList8x4(a: Uint8Array, b: Uint8Array, c: Uint8Array, d: Uint8Array, list: Uint32Array, t: Uint32Array): void {
  const n = list.length;
  let k = 0;
  for (; k + 1 < n; k += 2) {
    const p = list[k]!;
    const q = list[k + 1]!;
    t[a[p]!]!++;
    t[256 + b[p]!]!++;
    t[512 + c[p]!]!++;
    t[768 + d[p]!]!++;
    t[1024 + a[q]!]!++;
    t[1280 + b[q]!]!++;
    t[1536 + c[q]!]!++;
    t[1792 + d[q]!]!++;
  }
  for (; k < n; k++) {
    const p = list[k]!;
    t[a[p]!]!++;
    t[256 + b[p]!]!++;
    t[512 + c[p]!]!++;
    t[768 + d[p]!]!++;
  }
}

function tallyRange16(data: Uint16Array, first: number, end: number, tally: Uint32Array): void {
  for (let i = first; i < end; i++) tally[data[i]!]!++;
}

function tallyList16(data: Uint16Array, list: Uint32Array, tally: Uint32Array): void {
  for (let k = 0; k < list.length; k++) tally[data[list[k]!]!]!++;
}

/** Whether a vector is tallied by the loops here (one or two bytes a person); others take fieldCounts.ts's generic loop. */
export function tallied(data: Vector): data is Uint8Array | Uint16Array {
  return data instanceof Uint8Array || data instanceof Uint16Array;
}

/** Fields tallied together (indexes into a job's vectors): four one-byte ones, or one. */
type Unit = number[];

/** The size of a unit's tallies. */
function unitSize(vectors: Array<Uint8Array | Uint16Array>, unit: Unit): number {
  if (unit.length === 4) return TALLY8X4;
  return vectors[unit[0]!] instanceof Uint8Array ? TALLY8 : TALLY16;
}

/** Adds the positions' values (the list's, or every position of [first, end) when there is none) to a unit's zeroed tallies. */
export function tallyUnit(
  vectors: Array<Uint8Array | Uint16Array>,
  unit: Unit,
  first: number,
  end: number,
  list: Uint32Array | null,
  tally: Uint32Array,
): void {
  if (unit.length === 4) {
    const [a, b, c, d] = unit.map((f) => vectors[f] as Uint8Array) as [Uint8Array, Uint8Array, Uint8Array, Uint8Array];
    if (list) tallyList8x4(a, b, c, d, list, tally);
    else tallyRange8x4(a, b, c, d, first, end, tally);
    return;
  }
  const data = vectors[unit[0]!]!;
  if (data instanceof Uint8Array) {
    if (list) tallyList8(data, list, tally);
    else tallyRange8(data, first, end, tally);
  } else if (list) tallyList16(data, list, tally);
  else tallyRange16(data, first, end, tally);
}

/** One field's counts by the vector's number (256 or 65536 entries) from its unit's tallies, its parts added up. */
export function fieldTally(vectors: Array<Uint8Array | Uint16Array>, unit: Unit, f: number, tally: Uint32Array): Uint32Array {
  if (unit.length === 4) {
    const at = 256 * unit.indexOf(f);
    return Uint32Array.from({ length: 256 }, (_, v) => tally[at + v]! + tally[1024 + at + v]!);
  }
  if (vectors[f] instanceof Uint8Array)
    return Uint32Array.from({ length: 256 }, (_, v) => tally[v]! + tally[256 + v]! + tally[512 + v]! + tally[768 + v]!);
  return tally;
}

// Slots of a job's control array (Int32Array).
/** The next unit to claim (past the last: none left). */
export const NEXT = 0;
/** Units finished (or failed), by either thread. */
export const DONE = 1;
/** Where unit u's status is: 0 while not done, 1 done by the calling thread, 2 by the worker, -1 failed. */
export const STATUS_AT = 2;
export const BY_CALLER = 1;
export const BY_WORKER = 2;
const FAILED = -1;

/** What the worker receives (structured clone; the vectors, `list`, `tallies` and `control` are shared memory, not copied). */
export interface FieldCountJob {
  kind: 'fieldCounts';
  /** Each field's vector. */
  vectors: Array<Uint8Array | Uint16Array>;
  units: Unit[];
  /** Where each unit's tallies start in `tallies` (their size: unitSize). */
  offsets: number[];
  tallies: Uint32Array;
  /** The positions counted: the list's, or every one of [first, end) when it is null. */
  list: Uint32Array | null;
  first: number;
  end: number;
  control: Int32Array;
}

/**
 * A job of the vectors: their one-byte ones four at a time, the rest one at a time. Shared: its
 * arrays in shared memory, for the worker to take part (the vectors and `list` must be too).
 */
export function fieldCountJob(
  vectors: Array<Uint8Array | Uint16Array>,
  list: Uint32Array | null,
  first: number,
  end: number,
  shared: boolean,
): FieldCountJob {
  const oneByte = vectors.flatMap((data, f) => (data instanceof Uint8Array ? [f] : []));
  const units: Unit[] = [];
  let k = 0;
  for (; k + 4 <= oneByte.length; k += 4) units.push(oneByte.slice(k, k + 4));
  // Two or three left: still one pass, the last one counted again in the spare places (fieldTally reads its first).
  const left = oneByte.slice(k);
  if (left.length >= 2) units.push([...left, ...Array<number>(4 - left.length).fill(left[left.length - 1]!)]);
  else units.push(...left.map((f) => [f]));
  vectors.forEach((data, f) => data instanceof Uint16Array && units.push([f]));
  const offsets: number[] = [];
  let size = 0;
  for (const unit of units) {
    offsets.push(size);
    size += unitSize(vectors, unit);
  }
  const buffer = (bytes: number) => (shared ? new SharedArrayBuffer(bytes) : new ArrayBuffer(bytes));
  return {
    kind: 'fieldCounts',
    vectors,
    units,
    offsets,
    tallies: new Uint32Array(buffer(4 * size)),
    list,
    first,
    end,
    control: new Int32Array(buffer(4 * (STATUS_AT + units.length))),
  };
}

/** Unit u's tallies in the job's array. */
export const unitTally = (job: FieldCountJob, u: number): Uint32Array =>
  job.tallies.subarray(job.offsets[u]!, job.offsets[u]! + unitSize(job.vectors, job.units[u]!));

/** A unit's tallies counted again in a fresh array (what the worker failed or did not finish). */
export function tallyUnitAgain(job: FieldCountJob, u: number): Uint32Array {
  const tally = new Uint32Array(unitSize(job.vectors, job.units[u]!));
  tallyUnit(job.vectors, job.units[u]!, job.first, job.end, job.list, tally);
  return tally;
}

/**
 * Claims and tallies units of `job` until none is left. Each unit's status is stored, then DONE is
 * counted up, also when the unit throws (it is then marked failed and the error goes on).
 */
export function claimFields(job: FieldCountJob, byWorker: boolean): void {
  const { control, units } = job;
  for (;;) {
    const u = Atomics.add(control, NEXT, 1);
    if (u >= units.length) return;
    let status = FAILED;
    try {
      tallyUnit(job.vectors, units[u]!, job.first, job.end, job.list, unitTally(job, u));
      status = byWorker ? BY_WORKER : BY_CALLER;
    } finally {
      Atomics.store(control, STATUS_AT + u, status);
      Atomics.add(control, DONE, 1);
      Atomics.notify(control, DONE);
    }
  }
}

/** Each field's counts by the vector's number once every unit is tallied (`again`: a unit's tallies when they are not in the job's array). */
export function fieldTallies(job: FieldCountJob, again: (u: number) => Uint32Array | null = () => null): Uint32Array[] {
  const out: Uint32Array[] = new Array(job.vectors.length);
  job.units.forEach((unit, u) => {
    const tally = again(u) ?? unitTally(job, u);
    for (const f of unit) out[f] = fieldTally(job.vectors, unit, f, tally);
  });
  return out;
}
