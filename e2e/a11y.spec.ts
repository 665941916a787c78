/**
 * Every page of the app, participant and researcher alike, checked with axe-core at WCAG 2.1 AA:
 * no violation of serious or critical impact. Each page is checked as a person reaches it, with
 * its data loaded, so the check sees what they see.
 */
import { expect, test, type Page } from './studio-test';
import { games } from '../src/games';
import { expectAccessible } from './axe';
import { openTask } from './helpers';
import { ADMIN, completeCurrentItem, sampleStudy } from './study-helpers';

/**
 * Tabs through the page and checks that every control the keyboard reaches draws a focus
 * indicator: an outline or a ring (box-shadow).
 */
async function expectVisibleFocus(page: Page, name: string, presses = 40): Promise<void> {
  await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
  const unmarked = new Set<string>();
  let reached = 0;
  for (let i = 0; i < presses; i++) {
    await page.keyboard.press('Tab');
    const focus = await page.evaluate(() => {
      const el = document.activeElement as HTMLElement | null;
      if (!el || el === document.body) return null;
      const style = getComputedStyle(el);
      const shown = (style.outlineStyle !== 'none' && parseFloat(style.outlineWidth) > 0) || style.boxShadow !== 'none';
      const text = (el.getAttribute('aria-label') ?? el.textContent ?? '').trim().slice(0, 40);
      return { shown, what: `${el.tagName.toLowerCase()} "${text}"` };
    });
    if (!focus) continue;
    reached++;
    if (!focus.shown) unmarked.add(focus.what);
  }
  expect.soft(reached, `the keyboard reaches controls on ${name}`).toBeGreaterThan(0);
  expect.soft([...unmarked], `controls without a visible focus indicator on ${name}`).toEqual([]);
}

test('the task browser, the task player and the pair viewer are accessible', async ({ page }) => {
  // axe over the browser of 800 tasks took over two minutes on a busy machine.
  test.setTimeout(240_000);
  await page.goto('/');
  await expect(page.getByRole('list', { name: 'Collections' })).toBeVisible();
  await page.getByRole('list', { name: 'Collections' }).getByRole('button', { name: /arc-agi-1/ }).click();
  await expect(page.getByTestId('task-count')).toHaveText('800 tasks');
  await expectAccessible(page, 'task browser');

  await expectVisibleFocus(page, 'task browser');

  await openTask(page, 'arc-agi-1', 'training/007bbfb7');
  await expectAccessible(page, 'task player');
  await expectVisibleFocus(page, 'task player');
  await page.getByRole('button', { name: 'Enlarge example 1' }).click();
  await expect(page.getByTestId('pair-viewer')).toBeVisible();
  await expectAccessible(page, 'pair viewer');
  await page.keyboard.press('Escape');
  await expect(page.getByTestId('pair-viewer')).toHaveCount(0);
});

test('a study on too small a screen, the games page, every game and a missing page are accessible', async ({ page }) => {
  test.setTimeout(120_000);
  // A phone at a study that needs a larger screen.
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto('/s/sample');
  await expect(page.getByTestId('device-message')).toBeVisible();
  await expectAccessible(page, 'device message');
  await page.setViewportSize({ width: 1280, height: 800 });

  await page.goto('/games');
  await expect(page.getByRole('link', { name: /push/ }).first()).toBeVisible();
  await expectAccessible(page, 'games page');

  for (const id of Object.keys(games)) {
    await page.goto(`/games/${id}`);
    await expect(page.getByTestId('game-level')).toHaveText(`1 / ${games[id].levels.length}`);
    await expectAccessible(page, `game player: ${id}`);
  }
  await expectVisibleFocus(page, 'game player');

  await page.goto('/no-such-page');
  await expectAccessible(page, 'missing page');
});

test('a participant meets only accessible pages from the study link to the end', async ({ page }) => {
  test.setTimeout(240_000);
  // The end page sends the participant back to the recruiter after a few seconds: keep them here.
  await page.route('https://app.prolific.com/**', (route) => route.fulfill({ status: 204 }));
  const study = sampleStudy();
  await page.goto(`/s/sample?PROLIFIC_PID=a11y-${Date.now().toString(36)}`);
  await expect(page.getByRole('heading', { name: 'Consent' })).toBeVisible();
  await expect(page.getByRole('main')).toHaveCount(1);
  await expectAccessible(page, 'study consent');
  await page.getByRole('button', { name: 'I agree, start' }).click();
  await expect(page.getByRole('heading', { name: 'Instructions' })).toBeVisible();
  await expectAccessible(page, 'study instructions');
  await page.getByRole('button', { name: 'Begin' }).click();

  const checked = new Set<string>();
  for (let i = 0; i < study.items.length; i++) {
    const holder = page.locator('[data-item]');
    await expect(holder).toBeVisible();
    const kind = (await holder.getAttribute('data-kind'))!;
    if (!checked.has(kind)) {
      if (kind === 'task') await expect(page.getByTestId('output-grid')).toBeVisible();
      if (kind === 'game') await expect(page.getByTestId('game-canvas')).toBeVisible();
      await expectAccessible(page, `study ${kind} item`);
      checked.add(kind);
    }
    await completeCurrentItem(page, study);
  }
  expect([...checked].sort()).toEqual(['game', 'page', 'task']);
  await expect(page.getByTestId('completion-code')).toHaveText(study.completion.code);
  await expect(page.getByRole('main')).toHaveCount(1);
  await expectAccessible(page, 'study end page');
});

/** Opens the studio as the researcher. */
async function logIn(page: Page): Promise<void> {
  // A new document, so that the login page reads the token from the link.
  await page.goto('about:blank');
  await page.goto(`/login#token=${process.env.E2E_ADMIN_TOKEN}`);
  await expect(page.getByRole('heading', { name: 'Studies' })).toBeVisible();
}

// The researcher studio in three tests, each with its own time limit: every page runs axe.
test('the login page, the studies list, every tab of the results and its dialogs are accessible', async ({ page }) => {
  test.setTimeout(180_000);
  await page.goto('/login');
  await expect(page.getByRole('heading', { name: 'Researcher login' })).toBeVisible();
  await expectAccessible(page, 'login');

  // A new document, so that the login page reads the token from the link.
  await page.goto('about:blank');
  await page.goto(`/login#token=${process.env.E2E_ADMIN_TOKEN}`);
  await expect(page.getByRole('heading', { name: 'Studies' })).toBeVisible();
  await expect(page.getByRole('link', { name: 'Sample study: grid puzzles and a game' })).toBeVisible();
  await expectAccessible(page, 'studies list');

  await page.getByRole('link', { name: 'Sample study: grid puzzles and a game' }).click();
  await expect(page.getByRole('table', { name: 'Participants' })).toBeVisible();
  await expectAccessible(page, 'results: participants');
  await expectVisibleFocus(page, 'results');
  await page.getByRole('tab', { name: 'Grid tasks' }).click();
  await expect(page.getByRole('table', { name: 'Grid tasks' })).toBeVisible();
  await expectAccessible(page, 'results: grid tasks');
  await page.getByRole('tab', { name: 'Game levels' }).click();
  await expect(page.getByTestId('funnel')).toBeVisible();
  await expect(page.getByTestId('no-clicks')).toBeVisible();
  await expectAccessible(page, 'results: game levels');
  await page.getByRole('tab', { name: /^Agents/ }).click();
  await expectAccessible(page, 'results: agents');
  await page.getByRole('tab', { name: 'Exports' }).click();
  await expect(page.getByRole('list', { name: 'Exports' })).toBeVisible();
  await expectAccessible(page, 'results: exports');
  await page.getByRole('tab', { name: 'Audit log' }).click();
  await expect(page.getByText('Every exclusion, inclusion and deletion')).toBeVisible();
  await expectAccessible(page, 'results: audit log');
  await page.getByRole('tab', { name: /^Participants/ }).click();
  await page.getByRole('button', { name: /^Exclude session / }).first().click();
  await expect(page.getByRole('dialog', { name: /^Exclude session / })).toBeVisible();
  await expectAccessible(page, 'exclude session dialog');
  await page.keyboard.press('Escape');
  await page.getByRole('button', { name: /^Delete session / }).first().click();
  await expect(page.getByRole('dialog', { name: /^Delete session / })).toBeVisible();
  await expectAccessible(page, 'delete session dialog');
  await page.keyboard.press('Escape');
  await expect(page.getByRole('dialog')).toHaveCount(0);
});

test('the replay of a session and the playtest with its validate panel are accessible', async ({ page, request }) => {
  test.setTimeout(180_000);
  // A finished session of the sample study to replay: the participant test above made one.
  type Participant = { sessionId: string; state: string; playtest: boolean };
  const finishedSession = async () => {
    const results = await (await request.get('/api/admin/studies/sample/results', { headers: ADMIN })).json() as { participants: Participant[] };
    return results.participants.find((p) => p.state === 'finished' && !p.playtest)?.sessionId;
  };
  await expect.poll(finishedSession, { message: 'a finished session of the sample study', timeout: 20_000 }).toBeDefined();
  const sessionId = (await finishedSession())!;
  await logIn(page);
  await page.goto(`/studies/sample/sessions/${sessionId}`);
  await expect(page.getByTestId('replay-position')).toBeVisible();
  await expectAccessible(page, 'replay: first item');
  await page.getByRole('list', { name: 'Items' }).getByRole('button', { name: /^push/ }).click();
  await expect(page.getByTestId('replay-frame')).toBeVisible();
  await expectAccessible(page, 'replay: game');

  await page.goto('/games/push/playtest');
  await expect(page.getByTestId('game-canvas')).toBeVisible();
  await expectAccessible(page, 'playtest');
  await page.getByRole('button', { name: 'Validate…' }).click();
  const panel = page.getByTestId('validate-panel');
  await expect(panel).toBeVisible();
  await panel.getByLabel('Steps', { exact: true }).selectOption('10000');
  await panel.getByRole('button', { name: 'Validate', exact: true }).click();
  await expect(panel.getByTestId('validate-status')).toContainText('Finished', { timeout: 60_000 });
  await expectAccessible(page, 'playtest: validate panel');
});

test('the score page, the study editor with its task picker and dialogs, and a new study are accessible', async ({ page }) => {
  test.setTimeout(180_000);
  await logIn(page);
  await page.goto('/score');
  await page.getByRole('combobox', { name: 'Baselines from a study' }).selectOption('sample');
  await expect(page.getByText('Using study:sample')).toBeVisible();
  await expectAccessible(page, 'score page');

  await page.goto('/studies/sample/edit');
  await expect(page.getByRole('button', { name: 'Save study' })).toBeVisible();
  await expectAccessible(page, 'study editor');
  await expectVisibleFocus(page, 'study editor', 60);
  await page.getByRole('button', { name: /^Task / }).first().click();
  await expect(page.getByTestId('task-picker-chosen')).toBeVisible();
  await expectAccessible(page, 'task picker');
  await page.keyboard.press('Escape');
  await expect(page.getByTestId('task-picker')).toHaveCount(0);
  await page.goto('/studies/new');
  await expect(page.getByRole('button', { name: 'Save study' })).toBeVisible();
  await expectAccessible(page, 'new study');
  await page.goto('/studies/sample/edit');
  await page.getByRole('button', { name: 'Delete study' }).click();
  await expect(page.getByRole('dialog', { name: 'Delete study sample?' })).toBeVisible();
  await expectAccessible(page, 'delete study dialog');
  await page.keyboard.press('Escape');
  await expect(page.getByRole('dialog')).toHaveCount(0);
});

test('question items, with choices and with typeset math, are accessible', async ({ page, request }) => {
  const id = `a11y-questions-${Date.now().toString(36)}`;
  const definition = {
    title: 'Accessible questions',
    consent: 'You agree to take part.',
    items: [
      { kind: 'question', id: 'q-choice', collection: 'science', question: 'sci-004' },
      { kind: 'question', id: 'q-math', collection: 'arb-sample', question: 'arb-phys-1' },
    ],
    completion: { code: 'A11Y-Q' },
  };
  const saved = await request.post(`/api/admin/studies/${id}`, { headers: ADMIN, data: { definition } });
  expect(saved.status(), await saved.text()).toBe(201);
  await page.goto(`/s/${id}?PROLIFIC_PID=a11y-questions`);
  await page.getByRole('button', { name: 'I agree, start' }).click();
  await page.getByRole('button', { name: 'Begin' }).click();

  await expect(page.getByRole('radio').first()).toBeVisible();
  await expectAccessible(page, 'study question item: choices');
  await page.getByRole('radio').first().check();
  await page.getByRole('button', { name: 'Submit answer' }).click();
  await expect(page.getByRole('status')).toHaveText('Your answer is recorded.');
  await expectAccessible(page, 'study question item: answered');
  await page.getByRole('button', { name: 'Next' }).click();

  await expect(page.getByTestId('question-prompt').locator('.katex').first()).toBeVisible();
  await expectAccessible(page, 'study question item: math');
});

test('a question block, a survey, the withdraw dialog and the withdrawn page are accessible, with a visible focus', async ({ page, request }) => {
  const id = `a11y-survey-${Date.now().toString(36)}`;
  const definition = {
    title: 'Accessible surveys',
    consent: 'You agree to take part.',
    items: [
      { kind: 'question', id: 'block', questions: [{ collection: 'science', question: 'sci-004' }, { collection: 'arb-sample', question: 'arb-phys-1' }] },
      { kind: 'survey', id: 'about', title: 'About you', questions: [
        { id: 'age', prompt: 'How old are you?', type: 'number', required: true },
        { id: 'hand', prompt: 'Which hand do you write with?', type: 'choice', options: ['Left', 'Right'] },
        { id: 'ease', prompt: 'How hard was it?', type: 'scale', min: 1, max: 5, labels: ['Easy', 'Hard'] },
        { id: 'notes', prompt: 'Anything else?', type: 'longtext' },
      ] },
    ],
    completion: { code: 'A11Y-S' },
    withdraw: { code: 'A11Y-W' },
  };
  const saved = await request.post(`/api/admin/studies/${id}`, { headers: ADMIN, data: { definition } });
  expect(saved.status(), await saved.text()).toBe(201);
  await page.goto(`/s/${id}?PROLIFIC_PID=a11y-survey`);
  await page.getByRole('button', { name: 'I agree, start' }).click();
  await page.getByRole('button', { name: 'Begin' }).click();

  await expect(page.getByTestId('block-question')).toHaveCount(2);
  await expectAccessible(page, 'study question block');
  await expectVisibleFocus(page, 'study question block');
  await page.getByRole('button', { name: 'Give up and continue' }).click();
  await expect(page.getByRole('dialog', { name: 'Give up this item?' })).toBeVisible();
  await expectAccessible(page, 'give up dialog');
  await page.getByRole('button', { name: 'Give up and move on' }).click();

  await expect(page.getByRole('heading', { name: 'About you' })).toBeVisible();
  await page.getByRole('button', { name: 'Submit answers' }).click();
  await expect(page.getByText('needs an answer')).toBeVisible();
  await expectAccessible(page, 'study survey with a problem named');
  await expectVisibleFocus(page, 'study survey');

  await page.getByRole('button', { name: 'Withdraw from study' }).click();
  await expect(page.getByRole('dialog', { name: 'Withdraw from the study?' })).toBeVisible();
  await expectAccessible(page, 'withdraw dialog');
  await expectVisibleFocus(page, 'withdraw dialog', 12);
  await page.getByRole('radio', { name: 'Another reason' }).check();
  await page.getByRole('button', { name: 'Withdraw', exact: true }).click();
  await expect(page.getByTestId('withdraw-code')).toHaveText('A11Y-W');
  await expectAccessible(page, 'withdrawn page');
});
