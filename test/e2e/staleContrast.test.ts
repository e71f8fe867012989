// Panels whose answer is being replaced keep their text legible: the last answer stays, marked stale
// (a bar at its side, a progress cursor, aria-busy) instead of dimmed, which took it below WCAG's
// 4.5:1 contrast. The real desk in real Chromium; the count and the breakdown of a new state are held
// back at the page's wire so the old ones stay on screen, stale, while axe looks in both schemes.
import { describe, expect, it } from 'vitest';
import type { Route } from 'playwright-core';
import { axeViolations } from './support/axe';
import { useDeskInState } from './support/deskInState';

const desk = useDeskInState('CA');

describe('stale answers while new ones load', () => {
  it('stay legible, marked busy, in the light and the dark scheme', async () => {
    const { page } = desk;
    await page.locator('.ag-row[row-index="0"] [col-id="pid"]').first().waitFor();
    await page.getByTestId('tab-breakdown').click();
    await page.locator('[data-testid^="breakdown-bar-"]').first().waitFor();
    await page.locator('[data-testid="breakdown-bars"][aria-busy="false"]').waitFor();
    const held: Route[] = [];
    const hold = (route: Route) => void held.push(route);
    await page.route('**/ui/rpc/audience/count', hold);
    await page.route('**/ui/rpc/audience/breakdown', hold);
    try {
      await page.getByTestId('state-select').selectOption('TX');
      const bars = page.locator('[data-testid="breakdown-bars"][aria-busy="true"]');
      const count = page.locator('[data-testid="audience-count"][aria-busy="true"]');
      await bars.waitFor();
      await count.waitFor();
      // California's bars are still there, at full strength.
      expect(await page.locator('[data-testid^="breakdown-bar-"]').count()).toBeGreaterThan(0);
      expect(await bars.evaluate((el) => el.ownerDocument.defaultView!.getComputedStyle(el).opacity)).toBe('1');
      expect(await count.evaluate((el) => el.ownerDocument.defaultView!.getComputedStyle(el).opacity)).toBe('1');
      for (const scheme of ['light', 'dark'] as const) {
        await page.emulateMedia({ colorScheme: scheme });
        expect(await axeViolations(page), scheme).toEqual([]);
      }
      expect(held.length).toBeGreaterThanOrEqual(2);
    } finally {
      await page.unroute('**/ui/rpc/audience/count');
      await page.unroute('**/ui/rpc/audience/breakdown');
      // A request the page gave up on meanwhile (a newer one replaced it) is already closed.
      for (const route of held) await route.continue().catch(() => undefined);
    }
    await page.locator('[data-testid="breakdown-bars"][aria-busy="false"]').waitFor();
    await page.locator('[data-testid="audience-count"][aria-busy="false"]').waitFor();
  });
});
