// Measuring a laid-out page in real Chromium: what sticks out of the window, what is wider than its
// box, and labels cut off. Used by the layout tests of every e2e file.
import type { Page } from 'playwright-core';

/**
 * Every element matching a selector lies inside the viewport (only sideways for `across`: content of
 * a panel that scrolls up and down), and none is wider than its box (unless it scrolls sideways on
 * purpose, overflow-x: auto). Also: the page itself does not scroll sideways.
 */
export async function overflows(page: Page, selectors: string[], across = false): Promise<string[]> {
  // In the page (the tests' own types have no DOM): everything is reached from the <html> element.
  return page.locator('html').evaluate(
    (html, [list, sideways]) => {
      const doc = html.ownerDocument;
      const bad: string[] = [];
      const vw = html.clientWidth;
      const vh = html.clientHeight;
      for (const sel of list) {
        const els = [...doc.querySelectorAll(sel)];
        if (!els.length) bad.push(`${sel}: not found`);
        for (const el of els) {
          const r = el.getBoundingClientRect();
          const outside = r.left < -0.5 || r.right > vw + 0.5 || (!sideways && (r.top < -0.5 || r.bottom > vh + 0.5));
          if (outside)
            bad.push(`${sel}: ${Math.round(r.left)},${Math.round(r.top)} to ${Math.round(r.right)},${Math.round(r.bottom)} in ${vw}x${vh}`);
          if (el.scrollWidth > el.clientWidth + 1 && doc.defaultView.getComputedStyle(el).overflowX !== 'auto')
            bad.push(`${sel}: content ${el.scrollWidth} px wide in ${el.clientWidth} px`);
        }
      }
      if (html.scrollWidth > vw) bad.push(`page scrolls sideways: ${html.scrollWidth} > ${vw}`);
      return bad;
    },
    [selectors, across] as const,
  );
}

/** Elements matching the selector whose text is cut (wider than their box) or drawn past their parent's right edge. */
export async function cutLabels(page: Page, selector: string): Promise<string[]> {
  return page.locator(selector).evaluateAll((els) => {
    const bad: string[] = [];
    for (const el of els) {
      if (el.scrollWidth > el.clientWidth + 1 && el.clientWidth > 0)
        bad.push(`"${el.textContent.trim()}" cut: ${el.scrollWidth} > ${el.clientWidth}`);
      const parent = el.parentElement.getBoundingClientRect();
      if (el.getBoundingClientRect().right > parent.right + 0.5) bad.push(`"${el.textContent.trim()}" past its box`);
    }
    return bad;
  });
}

/** Each element matching the selector lies inside the window (a tab, a button). */
export async function outsideWindow(page: Page, selector: string): Promise<string[]> {
  return page.locator(selector).evaluateAll((els) => {
    const html = els[0]?.ownerDocument.documentElement;
    if (!html) return [];
    return els
      .filter((el) => {
        const r = el.getBoundingClientRect();
        return r.width > 0 && (r.left < -0.5 || r.right > html.clientWidth + 0.5 || r.bottom > html.clientHeight + 0.5 || r.top < -0.5);
      })
      .map((el) => `${el.dataset.testid ?? el.textContent.trim()}`);
  });
}
