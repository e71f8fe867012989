// Browser mode's small parts: export names made safe, token comparison, cookies, and `serve`'s
// one-line answer when the renderer is not built.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { browserExportPath, sanitizeExportName } from '../../src/server/uiExportPath';
import { createUiToken, readCookie, tokenMatches } from '../../src/server/uiSecurity';
import { mountBrowserUi, UI_NOT_BUILT } from '../../src/server/uiBrowserMode';
import { rpcPath, uiUrl } from '../../src/shared/rpcPaths';
import { startApi } from '../support/apiHarness';

describe('export names', () => {
  it('keeps a plain name, drops folders, dots and odd characters, and fixes the extension', () => {
    expect(sanitizeExportName('women of CA', 'csv')).toBe('women of CA.csv');
    expect(sanitizeExportName('women.csv', 'csv')).toBe('women.csv');
    expect(sanitizeExportName('women.CSV', 'jsonl')).toBe('women.jsonl');
    expect(sanitizeExportName('../../etc/passwd', 'csv')).toBe('passwd.csv');
    expect(sanitizeExportName('C:\\Windows\\evil', 'csv')).toBe('evil.csv');
    expect(sanitizeExportName('.bashrc', 'csv')).toBe('bashrc.csv');
    expect(sanitizeExportName('...', 'csv')).toBe('audience.csv');
    expect(sanitizeExportName('a\u0000b<>|:*?"', 'jsonl')).toBe('a_b_.jsonl');
    expect(sanitizeExportName('x'.repeat(500), 'csv')).toHaveLength(124);
  });

  it('places every file in <home>/exports and never over an existing one', async () => {
    const home = mkdtempSync(join(tmpdir(), 'audience-desk-names-'));
    try {
      const resolve = browserExportPath(home);
      expect(await resolve('/etc/passwd', 'csv')).toBe(join(home, 'exports', 'passwd.csv'));
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
});

describe('token and cookies', () => {
  it('compares tokens exactly', () => {
    const t = createUiToken();
    expect(t).not.toBe(createUiToken());
    expect(tokenMatches(t, t)).toBe(true);
    expect(tokenMatches(t.slice(0, -1), t)).toBe(false);
    expect(tokenMatches(`${t}x`, t)).toBe(false);
    expect(tokenMatches(undefined, t)).toBe(false);
    expect(tokenMatches(['a'], t)).toBe(false);
    expect(tokenMatches('', t)).toBe(false);
  });

  it('reads one cookie by name', () => {
    expect(readCookie('a=1; adk_ui_5=tok; b=2', 'adk_ui_5')).toBe('tok');
    expect(readCookie('xadk_ui_5=tok', 'adk_ui_5')).toBeUndefined();
    expect(readCookie(undefined, 'adk_ui_5')).toBeUndefined();
  });

  it('names rpc paths and the page URL', () => {
    expect(rpcPath('audience/count')).toBe('/ui/rpc/audience/count');
    expect(uiUrl('http://127.0.0.1:9', 'a-b_c')).toBe('http://127.0.0.1:9/ui/?token=a-b_c');
  });
});

describe('renderer not built', () => {
  it('registers nothing and says so in one line', async () => {
    const h = await startApi(inject('datasetPath'), {});
    try {
      // startApi already listens, so mount on a fresh server of the same core.
      const { ApiServer } = await import('../../src/server/apiServer');
      const server = new ApiServer(h.core);
      const ui = await mountBrowserUi(h.core, server, join(h.homeDir, 'no-renderer'));
      const url = await server.listen(0);
      expect(ui.available).toBe(false);
      expect(ui.url()).toBeNull();
      expect((await fetch(`${url}/ui/`)).status).toBe(404);
      expect(UI_NOT_BUILT.split('\n')).toHaveLength(1);
      expect(UI_NOT_BUILT).toMatch(/^ui: /);
      await server.close();
    } finally {
      await h.close();
    }
  });
});
