// `npx tsx bench/clickhouse/loadVsInsert.ts FILE`: the loader (`cli clickhouse load`'s function) beside
// ClickHouse's own insert of the same TabSeparated bytes (streamed POSTs of at most RECORDS_PER_INSERT
// lines each, one after the other, as `curl -T` sends a file: one POST of every record passes the
// server's per-query memory limit, into a table made the same way),
// on a local single node of Debian's ClickHouse, one after the other on the same file. It prints both
// rates and their ratio, so the
// load analysis in docs/clickhouse.md rests on a side-by-side measurement, not on one side alone.
import { request as httpRequest } from 'node:http';
import { createReadStream, createWriteStream, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import { ClickHouseConnection } from '../../src/core/clickhouse/connection';
import { loadIntoClickHouse, RECORDS_PER_INSERT } from '../../src/core/clickhouse/load';
import { createTableSql } from '../../src/core/clickhouse/schema';
import { detectDialect } from '../../src/core/clickhouse/serverDialect';
import { storedRecordToClickHouseTsv } from '../../src/core/clickhouse/tsvLine';
import { Dataset } from '../../src/core/dataset/read/dataset';
import { LOADER, startLocalClickHouse } from '../../test/clickhouse/support/localServers';

const file = process.argv[2];
if (!file) throw new Error('usage: npx tsx bench/clickhouse/loadVsInsert.ts FILE');
const DATABASE = 'bench_load';
const root = mkdtempSync(join(tmpdir(), 'audience-desk-load-bench-'));
const servers = await startLocalClickHouse(root);
const target = { url: servers.single.url, database: DATABASE, credentials: { ...LOADER } };
const connection = new ClickHouseConnection(target);
try {
  await connection.command(`CREATE DATABASE IF NOT EXISTS ${DATABASE}`);

  // The same bytes the loader sends, written once to files of at most RECORDS_PER_INSERT lines (not timed).
  const parts: string[] = [];
  let out = createWriteStream(join(root, 'people-0.tsv'));
  parts.push(out.path as string);
  let inPart = 0;
  const dataset = Dataset.open(file);
  for (const range of dataset.stateCounts().sort((a, b) => (a.state < b.state ? -1 : 1))) {
    const { first, count } = range;
    // Each record's PID rank in its state, as the loader writes it (the file's stored ranks, else its place).
    const ranks = dataset.pidOrder(range)?.ranks ?? null;
    for (let from = first, end = first + count; from < end; from += 2000) {
      const positions = Uint32Array.from({ length: Math.min(2000, end - from) }, (_, k) => from + k);
      const lines = dataset.recordTexts(positions).map((text, k) => {
        const offset = from - first + k;
        return storedRecordToClickHouseTsv(text, ranks ? ranks[offset]! : offset);
      });
      if (inPart + lines.length > RECORDS_PER_INSERT) {
        out.end();
        await once(out, 'finish');
        out = createWriteStream(join(root, `people-${parts.length}.tsv`));
        parts.push(out.path as string);
        inPart = 0;
      }
      inPart += lines.length;
      if (!out.write(lines.join(''))) await once(out, 'drain');
    }
  }
  out.end();
  await once(out, 'finish');
  const records = dataset.records;
  dataset.close();

  // 1. The loader, as `cli clickhouse load` runs it (its checks and switch included).
  let started = performance.now();
  const loaded = await loadIntoClickHouse({ datasetPath: file, target });
  const loaderSeconds = (performance.now() - started) / 1000;

  // 2. ClickHouse's own insert of the same bytes: streamed POSTs, one after the other, into a table of the same schema.
  const table = `${DATABASE}.people_curl`;
  await connection.command(createTableSql(table), (await detectDialect(connection, 'default')).createSettings);
  const query = `INSERT INTO ${table} FORMAT TabSeparated`;
  const url = `${servers.single.url}/?query=${encodeURIComponent(query)}`;
  started = performance.now();
  for (const tsv of parts)
    await new Promise<void>((resolve, reject) => {
      const request = httpRequest(url, { method: 'POST', auth: `${LOADER.username}:${LOADER.password}` }, (response) => {
        const body: Buffer[] = [];
        response.on('data', (b: Buffer) => body.push(b));
        response.on('end', () =>
          response.statusCode === 200
            ? resolve()
            : reject(new Error(`INSERT answered ${response.statusCode}: ${Buffer.concat(body).toString()}`)),
        );
      });
      request.on('error', reject);
      createReadStream(tsv).pipe(request);
    });
  const curlSeconds = (performance.now() - started) / 1000;

  const bytes = parts.reduce((n, part) => n + statSync(part).size, 0);
  console.log(`${records} records, ${(bytes / records).toFixed(0)} bytes a TabSeparated line, ${parts.length} INSERT requests`);
  console.log(`loader: ${loaded.records} records in ${loaderSeconds.toFixed(1)} s (${Math.round(records / loaderSeconds)} records/s)`);
  console.log(`plain INSERT: ${records} records in ${curlSeconds.toFixed(1)} s (${Math.round(records / curlSeconds)} records/s)`);
  console.log(`loader / plain INSERT time: ${(loaderSeconds / curlSeconds).toFixed(2)}x`);
} finally {
  await connection.close();
  await servers.stop();
  rmSync(root, { recursive: true, force: true });
}
