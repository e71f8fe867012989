// Consumer opt-outs and match and append on the ClickHouse engine: the shared test dataset loaded into
// a real ClickHouse server, a core on it and a core on the dataset file sharing one app state, each
// behind its own HTTP server. Opt-outs imported by the real CLI into that app state leave both
// engines' answers at the next request, the same people on each (the oracle's); a match of the same
// customer file writes the same bytes on both engines and never finds an opted-out person.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, inject, it } from 'vitest';
import { loadIntoClickHouse } from '../../src/core/clickhouse/load';
import { cli } from '../support/cli';
import { describeClickHouse, useLocalClickHouse } from '../clickhouse/support/localClickHouse';
import { startTwoCores, type Served, type TwoCores } from '../clickhouse/support/twoCores';
import { APPENDED, buildCustomers, csvCell, HEADER, readPeople, type Person } from '../match/matchData';
import { writeOptOutFile } from './optOutData';

describeClickHouse('consumer opt-outs and match and append on both engines', () => {
  const clickhouse = useLocalClickHouse();
  let cores: TwoCores;
  let people: Person[];
  let state: string;

  beforeAll(async () => {
    const datasetPath = inject('datasetPath');
    await loadIntoClickHouse({ datasetPath, target: clickhouse().singleLoad });
    cores = await startTwoCores(datasetPath, clickhouse().singleServe, { queryBudgetSeconds: 120 });
    people = readPeople(datasetPath);
    state = 'CA';
  });
  afterAll(async () => {
    await cores?.close();
  });

  async function pids(served: Served): Promise<string[]> {
    const out: string[] = [];
    const first = (await (await served.post('/api/audiences/preview', { state, limit: 0 })).json()) as { total: number };
    for (let skip = 0; skip < first.total; skip += 1000) {
      const page = (await (await served.post('/api/audiences/preview', { state, limit: 1000, skip })).json()) as {
        results: Array<{ pid: string }>;
      };
      out.push(...page.results.map((r) => r.pid));
    }
    return out;
  }

  it('leaves the same opted-out people out of both engines at once, and match writes the same bytes on both', async () => {
    const everyone = people
      .filter((p) => p.STATE === state)
      .map((p) => p.PID)
      .sort();
    expect(await pids(cores.clickhouse)).toEqual(everyone);
    const optedOut = writeOptOutFile(join(cores.homeDir, 'optouts.csv'), people, state);
    const r = await cli(['optouts', 'import', join(cores.homeDir, 'optouts.csv'), '--home', cores.homeDir, '--db', inject('datasetPath')]);
    expect(r.code, r.stderr).toBe(0);
    const left = everyone.filter((pid) => !optedOut.has(pid));
    expect(left.length).toBeLessThan(everyone.length - 20);
    expect(await pids(cores.clickhouse)).toEqual(left);
    expect(await pids(cores.embedded)).toEqual(left);

    const specs = buildCustomers(people);
    const file = join(cores.homeDir, 'customers.csv');
    writeFileSync(file, [HEADER.join(','), ...specs.map((s) => s.cells.map(csvCell).join(','))].join('\n') + '\n');
    const outputs: Buffer[] = [];
    for (const served of [cores.embedded, cores.clickhouse]) {
      const out = join(cores.homeDir, `matched-${outputs.length}.csv`);
      const summary = await served.core.match.match({ file, out, fields: [...APPENDED] });
      const expected = specs.filter((s) => s.expect !== null && !optedOut.has(s.expect.pid)).length;
      expect(summary.matched).toBe(expected);
      outputs.push(readFileSync(out));
    }
    expect(outputs[1]!.equals(outputs[0]!)).toBe(true);
  });
});
