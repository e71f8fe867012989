// An export is owner-only from its first byte (src/core/fs/privateFile.ts), under a umask of 022:
// its hidden partial file while records are written into it, then the published file; browser
// mode's export folder is created 0700.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { homeLayout } from '../../src/core/appState/homeLayout';
import { exportAudience } from '../../src/core/export/exportAudience';
import { browserExportPath } from '../../src/server/uiExportPath';
import { normalizeAudienceRequest } from '../../src/shared/audienceRequest';
import { startApi, type ApiHarness } from '../support/apiHarness';
import { modeOf, ModeWatch, withUmask } from '../support/modeWatch';

let api: ApiHarness;
let dir: string;
beforeAll(async () => {
  api = await startApi(inject('datasetPath'));
  dir = mkdtempSync(join(tmpdir(), 'audience-desk-export-modes-'));
});
afterAll(async () => {
  await api.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('exports are 0600 from their first byte', () => {
  for (const format of ['csv', 'jsonl'] as const)
    it(`${format}: the partial file while records go into it, then the export`, async () => {
      const outPath = join(dir, `audience.${format}`);
      const watch = new ModeWatch(dir);
      try {
        await withUmask(0o022, () =>
          exportAudience(api.core.engine, normalizeAudienceRequest({ state: 'CA' }), {
            format,
            outPath,
            batchSize: 200,
            // Progress comes while the partial file is open: each look reads its mode then.
            onProgress: () => watch.look(),
          }),
        );
      } finally {
        watch.close();
      }
      expect([...watch.looked].filter((n) => n.startsWith(`.audience.${format}.partial-`))).toHaveLength(1);
      expect(watch.other()).toEqual([]);
      expect(modeOf(outPath)).toBe(0o600);
    });

  it("browser mode's export folder is created 0700", async () => {
    const path = await withUmask(0o022, () => browserExportPath(api.core.homeDir)('audience', 'csv'));
    expect(modeOf(homeLayout(api.core.homeDir).exports)).toBe(0o700);
    expect(path.startsWith(homeLayout(api.core.homeDir).exports)).toBe(true);
  });
});
