/** axe-core as every browser test runs it: WCAG 2.1 AA, and no violation of serious or critical impact. */
import axe from 'axe-core';
import { expect, type Page } from '@playwright/test';

const WCAG_21_AA = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'];
const LABEL_IN_NAME = 'label-content-name-mismatch';

/**
 * WCAG 2.1 AA, and WCAG 2.5.3 (Label in Name): a control's accessible name holds its visible
 * label, so that a person who says what they see (voice control) reaches it. axe marks that rule
 * experimental and leaves it out of the tags; a rule enabled by name runs beside the tags, in the
 * same pass.
 */
const OPTIONS: axe.RunOptions = {
  runOnly: { type: 'tag', values: WCAG_21_AA },
  rules: { [LABEL_IN_NAME]: { enabled: true } },
  // Only violations are read: axe then describes one node of each other result instead of every
  // node it passed (a CSS selector worked out for each), most of a run's time on a long page.
  resultTypes: ['violations'],
};

/**
 * Runs axe in the page as it is now, on the whole document or on the elements `include` selects.
 * axe is put into a document once and run there: `@axe-core/playwright` injects its half-megabyte
 * script on every run and finishes each run in a new tab, which made a check cost three times as
 * much. The app has no frames, so nothing is left out.
 */
export async function axeResults(page: Page, include?: string): Promise<axe.AxeResults> {
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(axe.source);
  return page.evaluate(
    ([options, selector]) =>
      (window as unknown as { axe: typeof axe }).axe.run(selector ? { include: [selector] } : document, options),
    [OPTIONS, include ?? null] as const,
  );
}

/** Checks the page as it is now; every serious or critical violation is reported, the test fails at its end. */
export async function expectAccessible(page: Page, name: string, include?: string): Promise<void> {
  const results = await axeResults(page, include);
  const ran = [results.passes, results.incomplete, results.inapplicable, results.violations].flat().map((r) => r.id);
  expect(ran, `axe ran ${LABEL_IN_NAME} on ${name}`).toContain(LABEL_IN_NAME);
  const serious = results.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  for (const v of serious) {
    for (const n of v.nodes)
      console.log(
        `[a11y] ${name}: ${v.id} (${v.impact}) at ${n.target.join(' ')}: ${(n.failureSummary ?? v.help).replace(/\s+/g, ' ').trim()}`,
      );
  }
  expect
    .soft(
      serious.flatMap((v) => v.nodes.map((n) => `${v.id} at ${n.target.join(' ')}`)),
      `serious or critical axe violations on ${name}`,
    )
    .toEqual([]);
}

/** The serious and critical violations on the page as it is now (inside `include`, when given), one line per element. */
export async function seriousViolations(page: Page, include?: string): Promise<string[]> {
  const { violations } = await axeResults(page, include);
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .flatMap((v) => v.nodes.map((n) => `${v.id} at ${n.target.join(' ')}`));
}
