// An API test's view of audiences over HTTP: a request's JSON answer, and every PID of an audience
// read page by page, with what paging promises checked on the way (one total on every page, pages in
// PID order, none repeated, as many as the total).
import { expect } from 'vitest';
import type { ApiHarness } from './apiHarness';

export interface JsonAnswer {
  status: number;
  body: any;
}

export interface AudiencePages {
  /** POST /api/audiences/<op> (preview unless named) and its JSON. */
  post(body: unknown, op?: string): Promise<JsonAnswer>;
  /** Every PID of the request's audience, `pageSize` at a time. */
  allPids(request: Record<string, unknown>, pageSize?: number): Promise<string[]>;
}

export function audiencePages(api: () => ApiHarness): AudiencePages {
  const post = async (body: unknown, op = 'preview'): Promise<JsonAnswer> => {
    const r = await api().post(`/api/audiences/${op}`, body);
    return { status: r.status, body: await r.json() };
  };
  const allPids = async (request: Record<string, unknown>, pageSize = 500): Promise<string[]> => {
    const first = await post({ ...request, limit: 0 });
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    const total = first.body.total as number;
    const pids: string[] = [];
    for (let skip = 0; skip < total; skip += pageSize) {
      const page = await post({ ...request, limit: pageSize, skip });
      expect(page.status, JSON.stringify(page.body)).toBe(200);
      expect(page.body.total).toBe(total);
      pids.push(...page.body.results.map((r: { pid: string }) => r.pid));
    }
    expect(pids).toHaveLength(total);
    expect([...pids].sort()).toEqual(pids);
    expect(new Set(pids).size).toBe(total);
    return pids;
  };
  return { post, allPids };
}
