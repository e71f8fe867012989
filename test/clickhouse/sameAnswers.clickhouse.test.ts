// The same answers from both engines: the shared test dataset loaded into real ClickHouse servers
// (a single node, and two shards behind a Distributed table), a real core and HTTP server on each
// engine, and a few hundred generated requests whose answers must be byte-identical JSON (status
// included); then breakdowns, cross-tabs, counts by step and exports through the audience service.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, inject, it } from 'vitest';
import { loadIntoClickHouse } from '../../src/core/clickhouse/load';
import { SHARDING_KEY_SQL } from '../../src/core/clickhouse/sharding';
import { ClickHouseConnection } from '../../src/core/clickhouse/connection';
import { isLocalTable } from '../../src/core/clickhouse/tableReads';
import { normalizeAudience, type AudienceInput } from '../../src/shared/audienceRequest';
import type { GroupCount } from '../../src/core/audience/contract/engine';
import { FIELDS, fieldIndex } from '../../src/shared/fields';
import { SqlOracle } from '../support/oracle';
import { readPeople, writeMessyList } from '../lists/listData';
import { describeClickHouse, useLocalClickHouse } from './support/localClickHouse';
import { generateRequests } from './support/requests';
import { startTwoCores, type TwoCores } from './support/twoCores';

const REQUESTS = 300;

for (const topology of ['single node', 'two shards'] as const) {
  describeClickHouse(`same answers from the embedded engine and ClickHouse (${topology})`, () => {
    const clickhouse = useLocalClickHouse();
    let cores: TwoCores;
    let oracle: SqlOracle;
    let exclusions: string[];

    beforeAll(async () => {
      const ch = clickhouse();
      const datasetPath = inject('datasetPath');
      if (topology === 'single node') await loadIntoClickHouse({ datasetPath, target: ch.singleLoad });
      else await loadIntoClickHouse({ datasetPath, target: ch.clusterLoad, cluster: { name: ch.clusterName, shardUrls: ch.shardUrls } });
      // A small export chunk, so the 30,000-record dataset exercises exports read between bookmarks.
      cores = await startTwoCores(datasetPath, topology === 'single node' ? ch.singleServe : ch.clusterServe, {
        exportChunk: 1009,
        queryBudgetSeconds: 120,
      });
      oracle = new SqlOracle(datasetPath);
      // Exclusions from the one app state both cores share: a saved audience and a suppression list.
      const saved = cores.embedded.core.savedAudiences.save({
        name: 'young women',
        state: 'CA',
        filters: [
          ['GENDER', ['F']],
          ['AGE', ['18-30']],
        ],
      });
      const listFile = join(cores.homeDir, 'suppress.csv');
      writeMessyList(
        listFile,
        readPeople(datasetPath).filter((_, i) => i % 9 === 0),
      );
      const list = await cores.embedded.core.lists.import(listFile, 'every ninth');
      exclusions = [`saved:${saved.id}`, `list:${list.id}`];
    });
    afterAll(async () => {
      await cores?.close();
      oracle?.close();
    });

    it(`reads its pages ${topology === 'single node' ? 'in one query with their count (a table of the node)' : 'in separate queries (a Distributed table)'}`, async () => {
      const ch = clickhouse();
      const connection = new ClickHouseConnection(topology === 'single node' ? ch.singleServe : ch.clusterServe);
      try {
        expect(await isLocalTable(connection, 'people')).toBe(topology === 'single node');
      } finally {
        await connection.close();
      }
    });

    if (topology === 'two shards')
      it('splits the records over both shards by a hash of PID, with no record on both, where the Distributed key puts them', async () => {
        const ch = clickhouse();
        const perShard: string[][] = [];
        for (const [i, url] of ch.shardUrls.entries()) {
          const connection = new ClickHouseConnection({ ...ch.clusterLoad, url });
          try {
            perShard.push((await connection.rows('SELECT PID FROM audience_desk.people_local ORDER BY PID')).map((r) => r[0]!));
            // The loader places rows itself; the server's own sharding key must agree, row by row.
            const [[misplaced]] = (await connection.rows(
              `SELECT count() FROM audience_desk.people_local WHERE ${SHARDING_KEY_SQL} % 2 != ${i}`,
            )) as [[string]];
            expect(misplaced).toBe('0');
          } finally {
            await connection.close();
          }
        }
        const entry = new ClickHouseConnection(ch.clusterLoad);
        try {
          const create = await entry.text('SHOW CREATE TABLE audience_desk.people');
          expect(create).toContain(`people_local, ${SHARDING_KEY_SQL})`);
        } finally {
          await entry.close();
        }
        const total = perShard[0]!.length + perShard[1]!.length;
        expect(total).toBe(inject('testRows'));
        // A hash splits 30,000 PIDs close to evenly.
        for (const pids of perShard) expect(pids.length).toBeGreaterThan(total * 0.45);
        const first = new Set(perShard[0]);
        expect(perShard[1]!.filter((pid) => first.has(pid))).toEqual([]);
      });

    it(`answers ${REQUESTS} generated preview and search requests with identical JSON`, async () => {
      const requests = generateRequests(oracle, REQUESTS, 20261125, exclusions);
      let nonEmpty = 0;
      for (const { path, body } of requests) {
        const [a, b] = await Promise.all([cores.embedded.post(path, body), cores.clickhouse.post(path, body)]);
        const [ta, tb] = [await a.text(), await b.text()];
        expect({ body, status: b.status, text: tb }).toEqual({ body, status: a.status, text: ta });
        if (a.status === 200 && (JSON.parse(ta) as { results: unknown[] }).results.length > 0) nonEmpty++;
      }
      // The comparison is only worth something if a good share of the answers hold records.
      expect(nonEmpty).toBeGreaterThan(REQUESTS / 4);
    }, 900_000);

    const audiences: AudienceInput[] = [
      { state: 'CA' },
      {
        state: 'TX',
        filters: [
          ['GENDER', ['M']],
          ['AGE', ['25-44', '65+']],
        ],
      },
      { state: 'NY', filters: [['HOMEOWNERC', ['H', 'R']]], households: 'one' },
      { state: 'CA', contact: { phone: 'callable', mail: 'deliverable' }, sample: { size: 300, seed: 11 } },
      { state: 'PA', near: { lat: 40.44, lon: -79.99, miles: 60 }, sample: { every: 3 } },
      { state: 'WY', filters: [['FNAME', ['NOBODY']]] },
    ];

    it('gives the same counts by step, breakdowns and cross-tabs', async () => {
      const strip = <T extends { ms?: number }>(x: T) => ({ ...x, ms: 0 });
      for (const input of [...audiences, { state: 'CA', exclude: exclusions }]) {
        const query = normalizeAudience(input);
        const [a, b] = [cores.embedded.core.audiences, cores.clickhouse.core.audiences];
        expect(strip(await b.count(query))).toEqual(strip(await a.count(query)));
        for (const field of ['AGE', 'GENDER', 'EHI', 'ZIP', 'LOR', 'PID', 'FNAME'])
          expect({ input, ...strip(await b.breakdown(query, field)) }).toEqual({ input, ...strip(await a.breakdown(query, field)) });
        for (const [rows, columns] of [
          ['AGE', 'GENDER'],
          ['EHI', 'HOMEOWNERC'],
        ])
          expect(strip(await b.crossTab(query, rows!, columns!, 30))).toEqual(strip(await a.crossTab(query, rows!, columns!, 30)));
        await expect(b.crossTab(query, 'PID', 'GENDER')).rejects.toThrow(/different value for nearly everyone/);
      }
    }, 300_000);

    it('counts many fields in one query as it counts each alone (strings, integers, numbers)', async () => {
      const indexes = ['AGE', 'GENDER', 'EHI', 'ZIP', 'LOR', 'FNAME', 'HOMEOWNERC', 'LATITUDE'].map(fieldIndex);
      const byValue = (groups: readonly GroupCount[]) => [...groups].sort((x, y) => String(x.values[0]).localeCompare(String(y.values[0])));
      // Plain audiences (no list controls): the one-query path.
      for (const input of audiences.filter((a) => Object.keys(a).every((k) => k === 'state' || k === 'filters'))) {
        const audience = { state: input.state, filters: normalizeAudience(input).filters };
        const [embedded, clickhouse] = [cores.embedded.core.engine, cores.clickhouse.core.engine];
        const many = await clickhouse.groupCountsMany(audience, indexes);
        expect(many).toHaveLength(indexes.length);
        for (const [k, index] of indexes.entries()) {
          const alone = await clickhouse.groupCounts(audience, [index]);
          expect(byValue(many[k]!)).toEqual(byValue(alone));
          // The embedded engine counts coded fields only (a number's vector is not a list of values).
          if (FIELDS[index]!.type !== 'number') expect(byValue(many[k]!)).toEqual(byValue(await embedded.groupCounts(audience, [index])));
        }
      }
    }, 300_000);

    it('breaks ties in count by value on both engines, and adds several states up alike', async () => {
      const strip = <T extends { ms?: number }>(x: T) => ({ ...x, ms: 0 });
      const [a, b] = [cores.embedded.core.audiences, cores.clickhouse.core.audiences];
      // Small audiences and small maxima: many cities hold as many people as the last one kept.
      for (const input of [
        { state: 'WY', filters: [['GENDER', ['F']]] },
        { state: 'DE', households: 'one', sample: { every: 2 } },
      ] as AudienceInput[]) {
        const query = normalizeAudience(input);
        for (const max of [1, 2, 3, 5, 8]) {
          expect(strip(await b.crossTab(query, 'CITY', 'GENDER', max))).toEqual(strip(await a.crossTab(query, 'CITY', 'GENDER', max)));
          expect(strip(await b.breakdown(query, 'CITY', max))).toEqual(strip(await a.breakdown(query, 'CITY', max)));
        }
      }
      const states = {
        ...normalizeAudience({ state: 'CA', contact: { phone: 'callable' }, sample: { size: 500, seed: 5 } }),
        states: ['CA', 'NY', 'TX'],
      };
      expect(strip(await b.count(states))).toEqual(strip(await a.count(states)));
      expect(strip(await b.preview({ ...states, skip: 150, limit: 300 }))).toEqual(
        strip(await a.preview({ ...states, skip: 150, limit: 300 })),
      );
      expect(strip(await b.breakdown(states, 'EHI'))).toEqual(strip(await a.breakdown(states, 'EHI')));
      expect(strip(await b.crossTab(states, 'AGE', 'CITY', 7))).toEqual(strip(await a.crossTab(states, 'AGE', 'CITY', 7)));
    }, 300_000);

    it('exports the same records (CSV and JSON Lines), ClickHouse in PID order', async () => {
      for (const input of audiences) {
        const query = normalizeAudience(input);
        for (const format of ['csv', 'jsonl'] as const) {
          const files = ['embedded', 'clickhouse'].map((name) => join(cores.homeDir, `${name}.${format}`));
          const a = await cores.embedded.core.audiences.exportToFile(query, { format, outPath: files[0]! });
          const b = await cores.clickhouse.core.audiences.exportToFile(query, { format, outPath: files[1]!, batchSize: 150 });
          expect(b.records).toBe(a.records);
          // Each engine writes its own storage order: ClickHouse its table's (PID), the embedded engine its
          // file's (households by ZIP in a generated file). The same lines, each record's beginning with its PID.
          const [embedded, clickhouse] = files.map((f) => readFileSync(f!, 'utf8').split(format === 'csv' ? '\r\n' : '\n'));
          const header = format === 'csv' ? 1 : 0;
          const body = embedded!.slice(header, -1);
          expect(clickhouse).toEqual([...embedded!.slice(0, header), ...[...body].sort(), '']);
          if (body.length > 20) expect(body).not.toEqual([...body].sort());
          writeFileSync(files[1]!, '');
        }
      }
    }, 300_000);
  });
}
