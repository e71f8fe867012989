// Doyensec's electronegativity over the sources: every finding must be one SECURITY.md explains
// (check id and file in its findings table). A new finding fails this test until it is fixed or
// explained there. The check that downloads Electron's release list is excluded (no network).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ELECTRON_VERSION = (JSON.parse(readFileSync('node_modules/electron/package.json', 'utf8')) as { version: string }).version;

describe('electronegativity', () => {
  it('finds nothing that SECURITY.md does not explain', () => {
    const dir = mkdtempSync(join(tmpdir(), 'audience-desk-eneg-'));
    try {
      const out = join(dir, 'findings.sarif');
      execFileSync('electronegativity', ['-i', 'src', '-r', '-e', ELECTRON_VERSION, '-x', 'AvailableSecurityFixesGlobalCheck', '-o', out], {
        stdio: 'ignore',
      });
      const sarif = JSON.parse(readFileSync(out, 'utf8')) as {
        runs: Array<{ results: Array<{ ruleId: string; locations: Array<{ physicalLocation: { artifactLocation: { uri: string } } }> }> }>;
      };
      const findings = sarif.runs.flatMap((r) =>
        r.results.map((f) => `${f.ruleId} ${f.locations[0]!.physicalLocation.artifactLocation.uri}`),
      );
      const security = readFileSync('SECURITY.md', 'utf8');
      const unexplained = findings.filter((f) => {
        const [rule, file] = f.split(' ');
        return !security.split('\n').some((line) => line.includes(`\`${rule}\``) && line.includes(`\`${file}:`));
      });
      expect(unexplained).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
