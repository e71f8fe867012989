// @vitest-environment happy-dom
// The Datasets dialog's restore (issue 39), against an in-memory fake of the back end: Restore… asks
// for backup/preview and shows what the backup would bring (keys by name, new ones marked, lists,
// saved audiences, the ClickHouse server) without restoring; Keep restores nothing; the confirm
// button restores with the fingerprint the preview answered. That the core refuses another
// fingerprint, and what it refuses to restore: test/history/backupHandlers.test.ts, test/security.
import { beforeEach, describe, expect, it } from 'vitest';
import { createPinia, setActivePinia } from 'pinia';
import { flushPromises, mount } from '@vue/test-utils';
import type { RestorePreview } from '../../src/shared/contract';
import { setBridge } from '../../src/renderer/src/bridge';
import { useDatasetsStore } from '../../src/renderer/src/stores/datasets';
import DatasetsDialog from '../../src/renderer/src/components/datasets/DatasetsDialog.vue';
import { fakeBridge } from './support/fakeBridge';

const NAME = 'audience-desk-backup-20260101-120000.sqlite';
const PREVIEW: RestorePreview = {
  name: NAME,
  fingerprint: 'ab'.repeat(32),
  createdAt: '2026-01-01T12:00:00.000Z',
  keys: [
    { name: 'my key', prefix: 'adk_abcd', createdAt: '2025-12-01', revoked: false, inThisHome: true },
    { name: 'helper', prefix: 'adk_PPPP', createdAt: '2026-01-01', revoked: false, inThisHome: false },
  ],
  lists: [{ name: 'Do not contact', pids: 3, phones: 2, addresses: 1 }],
  savedAudiences: ['Women in CA'],
  clickhouse: {
    url: 'http://10.0.0.9:8123',
    fallbackUrls: ['http://10.0.0.10:8123'],
    database: 'audience_desk',
    user: 'analyst',
    chosen: true,
  },
  counts: { keys: 2, activeKeys: 2, newKeys: 1, lists: 1, savedAudiences: 1, auditEntries: 4, settings: 3 },
};

function bridge() {
  return fakeBridge({
    'datasets/list': () => ({ datasets: [], keep: 3 }),
    'backup/list': () => ({
      folder: '/home/a/backups',
      backups: [{ name: NAME, path: `/home/a/backups/${NAME}`, bytes: 4096, createdAt: '' }],
    }),
    'backup/preview': () => PREVIEW,
    'backup/restore': () => ({ keys: 2, savedAudiences: 1, lists: 1, auditEntries: 4, settings: 3 }),
    'audiences/list': () => [],
  });
}

beforeEach(() => setActivePinia(createPinia()));

describe('restoring a backup in the app', () => {
  it('shows what the backup brings first, restores nothing on Keep, and restores that file, by fingerprint, on confirm', async () => {
    const fake = bridge();
    setBridge(fake);
    await useDatasetsStore().show();
    const wrapper = mount(DatasetsDialog);
    await flushPromises();
    const row = () => wrapper.get(`[data-testid="backup-${NAME}"]`);

    await row().get('[data-testid="backup-restore"]').trigger('click');
    await flushPromises();
    expect(fake['backup/preview']).toHaveBeenCalledWith({ name: NAME });
    expect(fake['backup/restore']).not.toHaveBeenCalled();
    const shown = row().get('[data-testid="backup-preview"]').text();
    expect(shown).toContain('API keys: 2');
    expect(row().get('[data-testid="backup-preview-new-keys"]').text()).toMatch(/1 active key is not a key of this home now/);
    expect(row().get('[data-testid="backup-preview-keys"]').text()).toMatch(/helper\s*adk_PPPP…\s*new/);
    expect(shown).toContain('Do not contact: 3 PIDs, 2 phones, 1 addresses');
    expect(shown).toContain('Women in CA');
    expect(row().get('[data-testid="backup-preview-clickhouse"]').text()).toMatch(
      /http:\/\/10\.0\.0\.9:8123\s*\(fallback nodes\s*http:\/\/10\.0\.0\.10:8123\), user analyst, database audience_desk \(the data source\)/,
    );

    await row().get('[data-testid="backup-restore-cancel"]').trigger('click');
    await flushPromises();
    expect(row().find('[data-testid="backup-preview"]').exists()).toBe(false);
    expect(fake['backup/restore']).not.toHaveBeenCalled();

    await row().get('[data-testid="backup-restore"]').trigger('click');
    await flushPromises();
    await row().get('[data-testid="backup-restore-confirm"]').trigger('click');
    await flushPromises();
    expect(fake['backup/restore']).toHaveBeenCalledWith({ name: NAME, fingerprint: PREVIEW.fingerprint });
    expect(wrapper.get('[data-testid="backup-restored"]').text()).toMatch(/^Restored: 2 keys, 1 saved audiences/);
  });
});
