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
  // Found and measured in one task in the page, as in every measure here: a locator's evaluateAll
  // finds the elements in one round trip and measures them in a second, and a render between the two
  // (a report finishing its load) leaves the elements it removed in hand, without a parent.
  return page.locator('html').evaluate((html, sel) => {
    const els = [...html.ownerDocument.querySelectorAll(sel)];
    const bad: string[] = [];
    for (const el of els) {
      if (el.scrollWidth > el.clientWidth + 1 && el.clientWidth > 0)
        bad.push(`"${el.textContent.trim()}" cut: ${el.scrollWidth} > ${el.clientWidth}`);
      const parent = el.parentElement.getBoundingClientRect();
      if (el.getBoundingClientRect().right > parent.right + 0.5) bad.push(`"${el.textContent.trim()}" past its box`);
    }
    return bad;
  }, selector);
}

/** Each element matching the selector lies inside the window (a tab, a button). */
export async function outsideWindow(page: Page, selector: string): Promise<string[]> {
  return page.locator('html').evaluate((html, sel) => {
    const els = [...html.ownerDocument.querySelectorAll(sel)];
    return els
      .filter((el) => {
        const r = el.getBoundingClientRect();
        return r.width > 0 && (r.left < -0.5 || r.right > html.clientWidth + 0.5 || r.bottom > html.clientHeight + 0.5 || r.top < -0.5);
      })
      .map((el) => `${el.dataset.testid ?? el.textContent.trim()}`);
  }, selector);
}

/**
 * Menus (select elements) matching the selector whose chosen option's text does not fit: Chromium
 * draws it cut, without an ellipsis or a wrap. Measured by Chromium itself: a copy of the menu holding
 * only that option, sized to its content, must be no wider than the menu.
 */
export async function cutSelects(page: Page, selector: string): Promise<string[]> {
  return page.locator('html').evaluate((html, sel) => {
    const selects = [...html.ownerDocument.querySelectorAll(sel)];
    const bad: string[] = [];
    for (const select of selects) {
      if (select.selectedIndex < 0 || select.clientWidth === 0) continue;
      const option = select.options[select.selectedIndex];
      const copy = select.cloneNode(false);
      copy.removeAttribute('id');
      copy.style.cssText = 'width: auto; min-width: 0; max-width: none; position: absolute; visibility: hidden;';
      copy.append(option.cloneNode(true));
      select.parentElement.append(copy);
      const needs = copy.getBoundingClientRect().width;
      copy.remove();
      const has = select.getBoundingClientRect().width;
      if (needs > has + 0.5) bad.push(`"${option.text}" cut: ${Math.round(needs)} > ${Math.round(has)}`);
    }
    return bad;
  }, selector);
}

/** How far the page itself scrolls, each way (0 and 0 when the window holds the whole page). */
export async function pageOverflow(page: Page): Promise<{ x: number; y: number }> {
  return page.locator('html').evaluate((html) => {
    const root = html.ownerDocument.scrollingElement;
    return { x: root.scrollWidth - root.clientWidth, y: root.scrollHeight - root.clientHeight };
  });
}

/** The two windows and the two colour schemes every layout check runs in. */
export const WINDOW_SIZES = [
  { width: 1024, height: 700 },
  { width: 1440, height: 900 },
] as const;
export const COLOR_SCHEMES = ['light', 'dark'] as const;

/**
 * Runs `check` in a 1024x700 and a 1440x900 window, in the light and the dark scheme, with a name
 * for the messages ("1024x700 (dark)"); then puts the page back to 1440x900, light.
 */
export async function atEverySize(page: Page, check: (where: string) => Promise<void>): Promise<void> {
  for (const scheme of COLOR_SCHEMES)
    for (const size of WINDOW_SIZES) {
      await page.emulateMedia({ colorScheme: scheme });
      await page.setViewportSize(size);
      await check(`${size.width}x${size.height} (${scheme})`);
    }
  await page.emulateMedia({ colorScheme: 'light' });
  await page.setViewportSize({ width: 1440, height: 900 });
}
