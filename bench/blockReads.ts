// What a dataset file's record blocks cost: bytes a record by part, the CPU to decompress one block
// among many different ones (a kept zstd context, as the engine reads, against node:zlib's one-shot
// function, a new context a call), and a search of 100 records at scattered positions through
// Dataset (each in its own block, few in the cache). Figures behind docs/dataset-format.md "Size" and
// "Reading a block". Usage: npx tsx bench/blockReads.ts FILE [FILE...]
import { statSync } from 'node:fs';
import { Dataset } from '../src/core/dataset/read/dataset';
import { ZstdDecompressor } from '../src/core/dataset/codec/zstdContext';
import { streamContentSize } from '../src/core/dataset/codec/zstdFrames';
import { openSqlite } from '../src/core/sqlite';
import { randomFrom } from '../src/core/audience/contract/listSteps';

const cpuMs = (since: NodeJS.CpuUsage): number => {
  const c = process.cpuUsage(since);
  return (c.user + c.system) / 1000;
};

function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

function sizes(path: string): string {
  const db = openSqlite(path, { readonly: true });
  try {
    const one = (sql: string): number => (db.prepare(sql).pluck().get() as number | null) ?? 0;
    const records = Number(one("SELECT value FROM meta WHERE key = 'records'"));
    const file = statSync(path).size;
    const blocks = one('SELECT sum(length(data)) FROM record_blocks');
    const vectors = one('SELECT sum(length(data)) FROM vector_chunks');
    const per = (n: number) => (n / records).toFixed(0);
    return `${(file / 1e6).toFixed(1)} MB, ${per(file)} bytes a record: record blocks ${per(blocks)}, vectors ${per(vectors)}, rest ${per(file - blocks - vectors)}`;
  } finally {
    db.close();
  }
}

/**
 * CPU a block to decompress `count` different blocks, read from the file beforehand: a kept context,
 * and node:zlib's one-shot function (a context a call) as format 4 read before zstdContext.ts.
 */
function blockCpu(path: string, count: number): { kept: number; oneShot: number } {
  const db = openSqlite(path, { readonly: true });
  try {
    const total = db.prepare('SELECT count(*) FROM record_blocks').pluck().get() as number;
    const rnd = randomFrom(7);
    const wanted = Array.from({ length: Math.min(count, total) }, () => Math.floor(rnd() * total));
    const read = db.prepare('SELECT data FROM record_blocks WHERE block = ?').pluck();
    const frames = wanted.map((b) => read.get(b) as Buffer);
    // Passes alternate between the two ways, and each way's best pass counts: the machine is shared.
    const ways = [true, false].map((keep) => ({ decompressor: new ZstdDecompressor(undefined, keep), best: Infinity }));
    for (const way of ways) for (const f of frames.slice(0, 50)) way.decompressor.decompress(f, streamContentSize(f));
    for (let pass = 0; pass < 8; pass++)
      for (const way of ways) {
        const t = process.cpuUsage();
        for (const f of frames) way.decompressor.decompress(f, streamContentSize(f));
        way.best = Math.min(way.best, cpuMs(t));
      }
    const [kept, oneShot] = ways.map((way) => (way.best / frames.length) * 1000);
    return { kept: kept!, oneShot: oneShot! };
  } finally {
    db.close();
  }
}

/** Searches of 100 records at scattered positions, each a fresh set (the block cache rarely has them). */
function scatteredSearch(path: string, searches: number): { p50: number; p95: number; cpu: number } {
  const dataset = Dataset.open(path);
  try {
    const rnd = randomFrom(11);
    const wall: number[] = [];
    let cpu = 0;
    for (let i = 0; i < searches + 20; i++) {
      const positions = new Set<number>();
      while (positions.size < 100) positions.add(Math.floor(rnd() * dataset.records));
      const sorted = Uint32Array.from([...positions].sort((a, b) => a - b));
      const c = process.cpuUsage();
      const t = performance.now();
      dataset.recordBytes(sorted);
      if (i < 20) continue;
      wall.push(performance.now() - t);
      cpu += cpuMs(c);
    }
    wall.sort((a, b) => a - b);
    return { p50: quantile(wall, 0.5), p95: quantile(wall, 0.95), cpu: cpu / searches };
  } finally {
    dataset.close();
  }
}

for (const path of process.argv.slice(2)) {
  const dataset = Dataset.open(path);
  const label = `${path} (format ${dataset.formatVersion}, ${dataset.records} records)`;
  dataset.close();
  console.log(label);
  console.log(`  size: ${sizes(path)}`);
  const block = blockCpu(path, 2000);
  console.log(
    `  one block among many, CPU: ${block.kept.toFixed(0)} µs with a kept context, ${block.oneShot.toFixed(0)} µs with node:zlib's one-shot function`,
  );
  const search = scatteredSearch(path, 200);
  console.log(
    `  search of 100 scattered records: p50 ${search.p50.toFixed(1)} ms, p95 ${search.p95.toFixed(1)} ms, CPU ${search.cpu.toFixed(1)} ms a search`,
  );
}
