// What `restore` prints about the ClickHouse server a backup names: its fallback nodes too, since
// requests go to them when the server does not answer.
import { describe, expect, it } from 'vitest';
import { formatRestorePreview } from '../../src/cli/commands/restoreSummary';
import type { RestorePreview } from '../../src/shared/contract';

const preview = (clickhouse: RestorePreview['clickhouse']): RestorePreview => ({
  name: 'b.backup',
  fingerprint: 'f'.repeat(64),
  createdAt: null,
  keys: [],
  lists: [],
  savedAudiences: [],
  clickhouse,
  counts: { keys: 0, activeKeys: 0, newKeys: 0, lists: 0, savedAudiences: 0, auditEntries: 0, settings: 0 },
});
const server = { url: 'http://10.0.0.9:8123', database: 'audience_desk', user: 'analyst', chosen: false };

describe('formatRestorePreview', () => {
  it("names a backup's ClickHouse fallback nodes beside its server", () => {
    const text = formatRestorePreview(preview({ ...server, fallbackUrls: ['http://10.0.0.10:8123', 'http://10.0.0.11:8123'] }), 'b', '/h');
    expect(text).toContain(
      'ClickHouse server: http://10.0.0.9:8123 (fallback nodes http://10.0.0.10:8123, http://10.0.0.11:8123), user analyst, database audience_desk;',
    );
  });

  it('says nothing of fallback nodes when there are none, and "none" without a server', () => {
    expect(formatRestorePreview(preview({ ...server, fallbackUrls: [] }), 'b', '/h')).toContain(
      'ClickHouse server: http://10.0.0.9:8123, user analyst, database audience_desk;',
    );
    expect(formatRestorePreview(preview(null), 'b', '/h')).toContain('ClickHouse server: none');
  });
});
