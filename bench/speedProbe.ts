// How fast this machine's CPU is right now, as one figure printed beside a benchmark's own. The
// virtual machines these benchmarks run on change speed from minute to minute with nothing else of
// ours running: the same single-threaded work took a median of 44 ms in one minute and 69 in the
// next (docs/performance.md, "How fast the machine is"), and the load average does not show it, since
// the time goes to the host's other guests. A probe taken just before each start or round says
// which of two figures met the faster machine, so runs from different hours can be compared.
//
// The work is a small copy of a request's: zstd blocks decompressed, an answer's JSON parsed, strings
// looked up in a Map. All on this thread, from inputs made once (the same every run).
import { zstdCompressSync, zstdDecompressSync } from 'node:zlib';

/** Records a made-up answer holds: a page of records at depth. */
const RECORDS = 100;
/** Values a made-up record holds: about a record's string fields. */
const VALUES = 270;

function madeUpRecords(): string[] {
  const records: string[] = [];
  for (let r = 0; r < RECORDS; r++) {
    const values: Array<string | number> = [];
    for (let v = 0; v < VALUES; v++) values.push(v % 5 === 0 ? (r * 7919 + v) % 1000 : `V${(r * 31 + v * 17) % 97}`);
    records.push(JSON.stringify(values));
  }
  return records;
}

interface ProbeInput {
  blocks: Buffer[];
  answer: string;
  keys: string[];
}

let input: ProbeInput | undefined;

function probeInput(): ProbeInput {
  if (input) return input;
  const records = madeUpRecords();
  const blocks: Buffer[] = [];
  for (let at = 0; at < records.length; at += 16) blocks.push(zstdCompressSync(Buffer.from(records.slice(at, at + 16).join('\n'))));
  const keys = Array.from({ length: 20_000 }, (_, k) => `K${(k * 7919) % 5000}`);
  input = { blocks, answer: `{"total":1,"records":[${records.join(',')}]}`, keys };
  return input;
}

/** One pass of the work; returns a number so that nothing of it can be left out. */
function onePass({ blocks, answer, keys }: ProbeInput): number {
  let sum = 0;
  for (let round = 0; round < 8; round++) for (const block of blocks) sum += zstdDecompressSync(block).length;
  for (let round = 0; round < 4; round++) sum += (JSON.parse(answer) as { records: unknown[] }).records.length;
  const seen = new Map<string, number>();
  for (const key of keys) seen.set(key, (seen.get(key) ?? 0) + 1);
  return sum + seen.size;
}

/**
 * The median milliseconds of one pass over 15 (after 10 not counted, in which V8 compiles it): lower
 * is faster. ~0.2-0.4 s in all.
 */
export function speedProbeMs(): number {
  const work = probeInput();
  let keep = 0;
  for (let k = 0; k < 10; k++) keep += onePass(work);
  const times: number[] = [];
  for (let k = 0; k < 15; k++) {
    const start = performance.now();
    keep += onePass(work);
    times.push(performance.now() - start);
  }
  if (keep < 0) throw new Error('unreachable: the probe counts lengths');
  times.sort((a, b) => a - b);
  return Math.round(times[7]! * 100) / 100;
}
