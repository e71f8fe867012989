// `exclude: ["exports-since:YYYY-MM-DD"]` over HTTP: the people of every export that finished on or
// after that local day are left out (checked against plain SQL over the same file), an export that
// finished the day before is not, an export finished after a count is seen at once, and a date that
// is not a day of the calendar is a 400 naming "exclude".
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { join } from 'node:path';
import { normalizeAudience } from '../../src/shared/audienceRequest';
import type { Filter } from '../../src/shared/contract';
import { useApiWithOracle, type ApiHarness } from '../support/apiHarness';
import type { SqlOracle } from '../support/oracle';

const harness = useApiWithOracle(() => inject('datasetPath'));
let api: ApiHarness;
let oracle: SqlOracle;
beforeAll(() => {
  api = harness.api();
  oracle = harness.oracle();
});

/** YYYY-MM-DD of the machine's local calendar, `days` from today. */
function localDay(days: number): string {
  const d = new Date();
  d.setDate(d.getDate() + days);
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
}

/** Exports an audience as the app does (a job, audited, remembered) and returns its audit id. */
async function exportOf(state: string, filters: Filter[], name: string): Promise<number> {
  const definition = { state, filters };
  const job = await api.core.audiences.startExport(normalizeAudience(definition), {
    definition,
    format: 'csv',
    path: join(api.homeDir, `${name}.csv`),
    actor: 'test',
  });
  expect((await api.core.exportJobs.settled(job.id)).status).toBe('done');
  return api.core.auditLog.list(1)[0]!.id;
}

async function total(body: Record<string, unknown>): Promise<{ status: number; body: any }> {
  const r = await api.post('/api/audiences/preview', { limit: 0, ...body });
  return { status: r.status, body: await r.json() };
}

describe('exclude exports-since', () => {
  it('leaves out everyone exported on or after the day, and not an export finished the day before', async () => {
    const married: Filter[] = [['MARRIEDCD', ['M']]];
    const women: Filter[] = [['GENDER', ['F']]];
    const old = await exportOf('CA', married, 'married');
    // The first export finished three days ago (local midnight plus an hour), as its audit entry says.
    const threeDaysAgo = new Date();
    threeDaysAgo.setDate(threeDaysAgo.getDate() - 3);
    threeDaysAgo.setHours(1, 0, 0, 0);
    api.core.appState.prepare('UPDATE audit_log SET at = ? WHERE id = ?').run(threeDaysAgo.toISOString(), old);

    const everyone = oracle.count('CA');
    // Nothing exported since today yet: nobody is left out.
    expect((await total({ state: 'CA', exclude: [`exports-since:${localDay(0)}`] })).body.total).toBe(everyone);
    const recent = await exportOf('CA', women, 'women');
    // Seen at once by the next request: the women are left out, the married people of three days ago are not.
    const since2 = await total({ state: 'CA', exclude: [`exports-since:${localDay(-2)}`] });
    expect(since2.status).toBe(200);
    expect(since2.body.total).toBe(oracle.listPids('CA', [], { excludePids: oracle.pids('CA', women) }).length);
    // From three days ago: both exports.
    const both = [...oracle.pids('CA', married), ...oracle.pids('CA', women)];
    expect((await total({ state: 'CA', exclude: [`exports-since:${localDay(-3)}`] })).body.total).toBe(
      oracle.listPids('CA', [], { excludePids: both }).length,
    );
    // With other exclusions and list controls, in the usual order.
    const withControls = await total({ state: 'CA', exclude: [`exports-since:${localDay(-3)}`, `export:${recent}`], households: 'one' });
    expect(withControls.body.total).toBe(oracle.listPids('CA', [], { excludePids: both, oneHousehold: true }).length);
    // A day still to come names nobody.
    expect((await total({ state: 'CA', exclude: [`exports-since:${localDay(1)}`] })).body.total).toBe(everyone);
  });

  it.each(['exports-since:2026-02-30', 'exports-since:2026-13-01', 'exports-since:26-11-01', 'exports-since:yesterday', 'exports-since:'])(
    '%s is a 400 naming "exclude"',
    async (ref) => {
      const r = await total({ state: 'CA', exclude: [ref] });
      expect(r.status).toBe(400);
      expect(r.body.error).toMatchObject({ code: 'invalid_request', field: 'exclude' });
      expect(r.body.error.message).toContain('exports-since:YYYY-MM-DD');
    },
  );
});
