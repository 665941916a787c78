/** axe-core as every browser test runs it: WCAG 2.1 AA, and no violation of serious or critical impact. */
import AxeBuilder from '@axe-core/playwright';
import { expect, type Page } from '@playwright/test';

const WCAG_21_AA = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'];

/** Checks the page as it is now; every serious or critical violation is reported, the test fails at its end. */
export async function expectAccessible(page: Page, name: string): Promise<void> {
  const { violations } = await new AxeBuilder({ page }).withTags(WCAG_21_AA).analyze();
  // WCAG 2.5.3 (Label in Name): a control's accessible name holds its visible label, so that a
  // person who says what they see (voice control) reaches it. axe marks the rule experimental and
  // leaves it out of the tags above; it is run by name.
  const { violations: named } = await new AxeBuilder({ page }).withRules(['label-content-name-mismatch']).analyze();
  const serious = [...violations, ...named].filter((v) => v.impact === 'serious' || v.impact === 'critical');
  for (const v of serious) {
    for (const n of v.nodes) console.log(`[a11y] ${name}: ${v.id} (${v.impact}) at ${n.target.join(' ')}: ${(n.failureSummary ?? v.help).replace(/\s+/g, ' ').trim()}`);
  }
  expect.soft(serious.flatMap((v) => v.nodes.map((n) => `${v.id} at ${n.target.join(' ')}`)), `serious or critical axe violations on ${name}`).toEqual([]);
}
