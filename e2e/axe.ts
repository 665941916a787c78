/**
 * axe-core as the browser tests run it: WCAG 2.1 AA with no violation of serious or critical
 * impact, and for the accessibility walk (`e2e/a11y.spec.ts`) WCAG 2.1 AA and axe's best practices
 * with no violation of any impact.
 */
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
 * How strict a check is. `serious`: WCAG 2.1 AA, serious and critical violations fail. `all`:
 * WCAG 2.1 AA and axe's best practices (one `h1` a page, headings in order, named table headers,
 * landmarks), any violation fails, minor ones included.
 */
export type AxeLevel = 'serious' | 'all';

const OPTIONS_ALL: axe.RunOptions = {
  ...OPTIONS,
  runOnly: { type: 'tag', values: [...WCAG_21_AA, 'best-practice'] },
};

function failing(results: axe.AxeResults, level: AxeLevel): axe.Result[] {
  return level === 'all'
    ? results.violations
    : results.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}

/**
 * Runs axe in the page as it is now, on the whole document or on the elements `include` selects.
 * axe is put into a document once and run there: `@axe-core/playwright` injects its half-megabyte
 * script on every run and finishes each run in a new tab, which made a check cost three times as
 * much. The app has no frames, so nothing is left out.
 */
export async function axeResults(page: Page, include?: string, level: AxeLevel = 'serious'): Promise<axe.AxeResults> {
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(axe.source);
  return page.evaluate(
    ([options, selector]) =>
      (window as unknown as { axe: typeof axe }).axe.run(selector ? { include: [selector] } : document, options),
    [level === 'all' ? OPTIONS_ALL : OPTIONS, include ?? null] as const,
  );
}

/**
 * Checks the page as it is now; every violation that fails at `level` is reported, the test fails
 * at its end.
 */
export async function expectAccessible(
  page: Page,
  name: string,
  include?: string,
  level: AxeLevel = 'serious',
): Promise<void> {
  const results = await axeResults(page, include, level);
  const ran = [results.passes, results.incomplete, results.inapplicable, results.violations].flat().map((r) => r.id);
  expect(ran, `axe ran ${LABEL_IN_NAME} on ${name}`).toContain(LABEL_IN_NAME);
  const serious = failing(results, level);
  for (const v of serious) {
    for (const n of v.nodes)
      console.log(
        `[a11y] ${name}: ${v.id} (${v.impact}) at ${n.target.join(' ')}: ${(n.failureSummary ?? v.help).replace(/\s+/g, ' ').trim()}`,
      );
  }
  expect
    .soft(
      serious.flatMap((v) => v.nodes.map((n) => `${v.id} at ${n.target.join(' ')}`)),
      `${level === 'all' ? 'axe violations (any impact)' : 'serious or critical axe violations'} on ${name}`,
    )
    .toEqual([]);
}

/** The serious and critical violations on the page as it is now (inside `include`, when given), one line per element. */
export async function seriousViolations(page: Page, include?: string): Promise<string[]> {
  return failing(await axeResults(page, include), 'serious').flatMap((v) =>
    v.nodes.map((n) => `${v.id} at ${n.target.join(' ')}`),
  );
}
