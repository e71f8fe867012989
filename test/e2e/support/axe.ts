// axe-core (the npm package) run over the page as it is now, in real Chromium: the serious and
// critical violations of every rule axe runs by default, colour contrast included.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';

const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** The serious and critical violations axe finds in the page as it is now, one line per element. */
export async function axeViolations(page: Page): Promise<string[]> {
  // Evaluated through the browser's debugging protocol: the app's Content-Security-Policy forbids inline scripts.
  if (!(await page.evaluate(() => 'axe' in globalThis))) await page.evaluate(AXE);
  return page.locator('html').evaluate(async (html) => {
    const axe = (globalThis as unknown as { axe: { run: (ctx: unknown, opts: unknown) => Promise<any> } }).axe;
    const result = await axe.run(html.ownerDocument, { resultTypes: ['violations'] });
    return (result.violations as any[])
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .flatMap((v) => v.nodes.map((n: any) => `${v.id}: ${n.target.join(' ')} ${n.failureSummary?.split('\n')[1] ?? ''}`.trim()));
  });
}
