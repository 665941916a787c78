/**
 * The built app under its Content-Security-Policy: a participant completes the sample study and a
 * researcher opens every studio page, the task player and the games, and the browser reports no
 * policy violation. Other pages may not frame the app.
 */
import { expect, test, type BrowserContext, type Page } from './studio-test';
import { completeCurrentItem, sampleStudy } from './study-helpers';
import { openTask, performGameAction, picture } from './helpers';

/** Collects every CSP violation and console error of the pages of `context`. */
async function watch(context: BrowserContext): Promise<string[]> {
  const problems: string[] = [];
  await context.exposeFunction('reportViolation', (text: string) => {
    problems.push(text);
  });
  await context.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (e) => {
      (window as unknown as { reportViolation(t: string): void }).reportViolation(
        `CSP ${e.effectiveDirective} blocked ${e.blockedURI || '(inline)'} at ${e.sourceFile}:${e.lineNumber}`,
      );
    });
  });
  context.on('console', (m) => {
    if (m.type() === 'error' && /Content.Security.Policy|Refused to/i.test(m.text())) problems.push(m.text());
  });
  return problems;
}

test('the app runs under its CSP: a whole study, the studio, the task player and the games', async ({
  browser,
  baseURL,
}) => {
  const context = await browser.newContext();
  const problems = await watch(context);
  const page: Page = await context.newPage();

  const first = await page.goto('/');
  const headers = first!.headers();
  expect(headers['content-security-policy']).toContain("script-src 'self'");
  expect(headers['content-security-policy']).toContain("frame-ancestors 'none'");
  expect(headers['x-frame-options']).toBe('DENY');
  expect(headers['x-content-type-options']).toBe('nosniff');
  expect(headers['referrer-policy']).toBe('no-referrer');
  await expect(page.getByRole('heading').first()).toBeVisible();

  // A participant's whole study: consent, grid tasks, the game, the completion page.
  const study = sampleStudy();
  await page.goto(`/s/sample?PROLIFIC_PID=csp-${Date.now().toString(36)}`);
  await page.getByRole('button', { name: 'I agree, start' }).click();
  await page.getByRole('button', { name: 'Begin' }).click();
  for (let i = 0; i < study.items.length; i++) await completeCurrentItem(page, study);
  await expect(page.getByTestId('completion-code')).toBeVisible();

  // Practice: a task and a game.
  await openTask(page, 'warm-ups', 'mirror-left-right');
  await page.goto('/games/push');
  await expect(page.getByTestId('game-canvas')).toBeVisible();
  await performGameAction(page, { action: 'RESET' });

  // The researcher's pages, the results charts and a replay included.
  await page.goto(`/login#token=${process.env.E2E_ADMIN_TOKEN}`);
  await page.getByRole('link', { name: 'Sample study: grid puzzles and a game' }).click();
  await page.getByRole('tab', { name: 'Game levels' }).click();
  await expect(page.getByTestId('funnel').first()).toBeVisible();
  await picture(page, 'results-under-csp');
  await page.getByRole('tab', { name: /Participants/ }).click();
  await page.getByRole('table', { name: 'Participants' }).getByRole('link', { name: 'Replay' }).first().click();
  await expect(page.getByRole('list', { name: 'Items' })).toBeVisible();
  for (const path of ['/studies', '/studies/sample/edit', '/studies/new', '/score', '/games', '/games/push/playtest']) {
    await page.goto(path);
    await expect(page.locator('#root')).not.toBeEmpty();
  }
  await picture(page, 'studio-under-csp');
  expect(problems).toEqual([]);

  // Another page may not frame the app (clickjacking).
  const framer = await context.newPage();
  // The frame's load event fires for the refused page too: the title says it has.
  await framer.setContent(
    `<iframe id="f" onload="document.title = 'frame loaded'" src="${baseURL}/s/sample"></iframe>`,
  );
  await expect(framer).toHaveTitle('frame loaded');
  expect(framer.frames().length).toBeGreaterThan(1);
  const framed = framer.frames()[1];
  expect(await framed.evaluate(() => document.querySelector('#root'))).toBeNull();
  await context.close();
});
