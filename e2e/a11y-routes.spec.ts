/**
 * Every route of the app, participant and studio alike, at three widths (a laptop, a tablet and a
 * phone): each page is reached as a person reaches it, with its data loaded, and checked with
 * axe-core (no serious or critical violation of WCAG 2.1 AA). The participant walks a study of
 * every item kind to its end page, withdraws from another session and declines a third; the
 * researcher opens every studio page, the replays of that session (grid task and game) and of an
 * agent's run, the campaign of a pool, the playtest, the grader's page and the missing page.
 */
import { expect, test, type Page } from './studio-test';
import { giveUpItem } from './arc3-helpers';
import { expectAccessible } from './axe';
import { ADMIN } from './study-helpers';

const SIZES = [
  { name: 'laptop', width: 1280, height: 800, touch: false },
  { name: 'tablet', width: 768, height: 1024, touch: true },
  { name: 'phone', width: 390, height: 844, touch: true },
] as const;

const stamp = Date.now().toString(36);
const STUDY = `a11y-walk-${stamp}`;
const POOL_STUDY = `a11y-pool-${stamp}`;
const TASK = 'training/0520fde7';

/** What the studio pages need, made once through the API. */
interface Fixture { graderPath: string; agentGuid: string }
let fixture: Fixture;

test.beforeAll(async ({ request }) => {
  test.setTimeout(120_000);
  const definition = {
    title: 'Every page, accessible',
    consent: 'You agree to take part.',
    instructions: 'Solve what you can.',
    devices: 'any',
    items: [
      { kind: 'page', id: 'welcome', title: 'Welcome', markdown: 'A page between items.' },
      { kind: 'task', id: 'grid', collection: 'samples', task: 'downscale-blocks' },
      { kind: 'game', id: 'push', game: 'push' },
      { kind: 'question', id: 'choice', collection: 'science', question: 'sci-004' },
      { kind: 'question', id: 'proof', collection: 'arb-sample', question: 'arb-math-1' },
      { kind: 'survey', id: 'about', title: 'About you', questions: [{ id: 'ease', prompt: 'How hard was it?', type: 'scale', min: 1, max: 5, labels: ['Easy', 'Hard'] }] },
    ],
    completion: { code: 'A11Y-WALK' },
    decline: { message: 'Thank you all the same.', code: 'A11Y-NO' },
    withdraw: { code: 'A11Y-W' },
  };
  const saved = await request.post(`/api/admin/studies/${STUDY}`, { headers: ADMIN, data: { definition } });
  expect(saved.status(), await saved.text()).toBe(201);
  const pool = {
    title: 'A pool, accessible', consent: 'You agree.', completion: { code: 'A11Y-POOL' }, campaign: { id: `a11y-campaign-${stamp}` },
    payment: { currency: 'GBP', fee: 3, bonus: { perSolve: 0.5, perLevel: 0 } },
    items: [{ kind: 'pool', id: 'pool', draw: 1, candidates: [{ kind: 'task', id: 'count', collection: 'samples', task: 'count-objects-bar' }, { kind: 'task', id: 'down', collection: 'samples', task: 'downscale-blocks' }] }],
  };
  const poolSaved = await request.post(`/api/admin/studies/${POOL_STUDY}`, { headers: ADMIN, data: { definition: pool } });
  expect(poolSaved.status(), await poolSaved.text()).toBe(201);

  const grader = await request.post(`/api/admin/studies/${STUDY}/graders`, { headers: ADMIN, data: { label: 'Grader A' } });
  expect(grader.status(), await grader.text()).toBe(201);
  const { path } = (await grader.json()) as { path: string };

  // An agent's run of push on the study's scorecard, over the ARC-AGI-3 protocol.
  const keyRes = await request.post('/api/admin/agent-keys', { headers: ADMIN, data: { name: `a11y-agent-${stamp}` } });
  expect(keyRes.status(), await keyRes.text()).toBe(201);
  const agent = { 'X-API-Key': ((await keyRes.json()) as { key: string }).key };
  const card = ((await (await request.post('/api/scorecard/open', { headers: agent, data: { tags: [`study:${STUDY}`] } })).json()) as { card_id: string }).card_id;
  const gameId = ((await (await request.get('/api/games/push', { headers: agent })).json()) as { game_id: string }).game_id;
  const reset = await request.post('/api/cmd/RESET', { headers: agent, data: { game_id: gameId, card_id: card } });
  expect(reset.status(), await reset.text()).toBe(200);
  const guid = ((await reset.json()) as { guid: string }).guid;
  for (const action of ['ACTION4', 'ACTION2', 'ACTION4']) {
    const r = await request.post(`/api/cmd/${action}`, { headers: agent, data: { game_id: gameId, guid } });
    expect(r.status(), await r.text()).toBe(200);
  }
  await request.post('/api/scorecard/close', { headers: agent, data: { card_id: card } });
  fixture = { graderPath: path, agentGuid: guid };
});

/** Waits for the study item with this id to be on screen. */
async function atItem(page: Page, id: string): Promise<void> {
  await expect(page.locator(`[data-item="${id}"]`)).toBeVisible();
}

async function press(page: Page, name: string | RegExp, touch: boolean): Promise<void> {
  const button = page.getByRole('button', { name, exact: typeof name === 'string' });
  if (touch) await button.tap();
  else await button.click();
}

for (const size of SIZES) {
  test.describe(`${size.name} ${size.width}x${size.height}`, () => {
    test.use({ viewport: { width: size.width, height: size.height }, hasTouch: size.touch, isMobile: size.touch });
    // The studio's replay opens the session the participant test finishes.
    test.describe.configure({ mode: 'serial' });
    const at = (page: string) => `${page} at ${size.width}`;

    test('every participant page is accessible: consent, instructions, each item kind, the dialogs and every stop page', async ({ page }) => {
      test.setTimeout(240_000);
      // The end page sends the participant back to the recruiter after a few seconds: keep them here.
      await page.route('https://app.prolific.com/**', (route) => route.fulfill({ status: 204 }));
      await page.goto(`/s/${STUDY}?PROLIFIC_PID=walk-${size.name}-${stamp}`);
      await expect(page.getByRole('button', { name: 'I agree, start' })).toBeVisible();
      await expectAccessible(page, at('consent'));
      await press(page, 'I agree, start', size.touch);
      await expect(page.getByRole('heading', { name: 'Instructions' })).toBeVisible();
      await expectAccessible(page, at('instructions'));
      await press(page, 'Begin', size.touch);

      await atItem(page, 'welcome');
      await expectAccessible(page, at('page item'));
      await press(page, 'Continue', size.touch);

      await atItem(page, 'grid');
      await expect(page.getByTestId('input-grid')).toBeVisible();
      await expectAccessible(page, at('task item'));
      await page.getByRole('button', { name: /^(Give up|Finish) and continue$/ }).click();
      await expect(page.getByRole('dialog')).toBeVisible();
      await expectAccessible(page, at('give up dialog'));
      await page.getByRole('dialog').getByRole('button', { name: /^(Give up|Finish) and move on$/ }).click();

      await atItem(page, 'push');
      await expect(page.getByTestId('game-canvas')).toBeVisible();
      await expectAccessible(page, at('game item'));
      await giveUpItem(page);

      await atItem(page, 'choice');
      await expect(page.getByRole('radio').first()).toBeVisible();
      await expectAccessible(page, at('question item: choices'));
      await page.getByRole('radio').first().check();
      await press(page, 'Submit answer', size.touch);
      await expect(page.getByRole('status').filter({ hasText: 'Your answer is recorded.' })).toBeVisible();
      await press(page, 'Next', size.touch);

      await atItem(page, 'proof');
      await expect(page.getByRole('textbox', { name: /^Your answer/ })).toBeVisible();
      await expectAccessible(page, at('question item: free response'));
      await page.getByRole('textbox', { name: /^Your answer/ }).fill('By induction on n.');
      await press(page, 'Submit answer', size.touch);
      await expect(page.getByRole('status').filter({ hasText: 'Your answer is recorded.' })).toBeVisible();
      await press(page, 'Next', size.touch);

      await atItem(page, 'about');
      await expect(page.getByRole('heading', { name: 'About you' })).toBeVisible();
      await expectAccessible(page, at('survey'));
      await press(page, 'Submit answers', size.touch);

      await expect(page.getByTestId('completion-code')).toHaveText('A11Y-WALK');
      await expectAccessible(page, at('end page'));

      // A second participant withdraws; a third declines.
      const other = await page.context().browser()!.newContext({ viewport: { width: size.width, height: size.height }, hasTouch: size.touch, isMobile: size.touch });
      const p2 = await other.newPage();
      await p2.goto(`/s/${STUDY}?PROLIFIC_PID=withdraw-${size.name}-${stamp}`);
      await press(p2, 'I agree, start', size.touch);
      await press(p2, 'Begin', size.touch);
      await atItem(p2, 'welcome');
      await press(p2, 'Withdraw from study', size.touch);
      await expect(p2.getByRole('dialog', { name: 'Withdraw from the study?' })).toBeVisible();
      await expectAccessible(p2, at('withdraw dialog'));
      await p2.getByRole('radio', { name: 'Another reason' }).check();
      await press(p2, 'Withdraw', size.touch);
      await expect(p2.getByTestId('withdraw-code')).toHaveText('A11Y-W');
      await expectAccessible(p2, at('withdrawn page'));
      await other.close();

      const third = await page.context().browser()!.newContext({ viewport: { width: size.width, height: size.height }, hasTouch: size.touch, isMobile: size.touch });
      const p3 = await third.newPage();
      await p3.goto(`/s/${STUDY}?PROLIFIC_PID=decline-${size.name}-${stamp}`);
      await press(p3, 'I do not agree', size.touch);
      await expect(p3.getByTestId('declined')).toBeVisible();
      await expectAccessible(p3, at('declined page'));
      // A study the server does not have.
      await p3.goto(`/s/no-such-study-${stamp}`);
      await expect(p3.getByTestId('study-error')).toBeVisible();
      await expectAccessible(p3, at('unknown study'));
      await third.close();
    });

    test('every studio page is accessible: studies, results tabs, replays, editor, campaign, score, games, playtest, tasks, grading', async ({ page, request }) => {
      test.setTimeout(300_000);
      // A finished session of the walk (the participant test of this width made one).
      const sessions = async () => ((await (await request.get(`/api/admin/sessions?study=${STUDY}`, { headers: ADMIN })).json()) as { sessions: { id: string; state: string }[] }).sessions;
      await expect.poll(async () => (await sessions()).some((s) => s.state === 'finished'), { timeout: 30_000 }).toBe(true);
      const sessionId = (await sessions()).find((s) => s.state === 'finished')!.id;

      await page.goto('/login');
      await expect(page.getByRole('heading', { name: 'Researcher login' })).toBeVisible();
      await expectAccessible(page, at('login'));
      await page.goto('about:blank');
      await page.goto(`/login#token=${process.env.E2E_ADMIN_TOKEN}`);
      await expect(page.getByRole('heading', { name: 'Studies' })).toBeVisible();
      await expectAccessible(page, at('studies list'));

      await page.goto(`/studies/${STUDY}`);
      await expect(page.getByRole('table', { name: 'Participants' })).toBeVisible();
      await expectAccessible(page, at('results: participants'));
      // Each tab with what shows that its data has come.
      const panel = page.getByRole('tabpanel');
      const tabs: [string | RegExp, () => Promise<void>][] = [
        ['Grid tasks', () => expect(panel.getByRole('table', { name: 'Grid tasks' })).toBeVisible()],
        ['Game levels', () => expect(panel.getByTestId('funnel')).toBeVisible()],
        ['Questions', () => expect(panel).toContainText('sci-004')],
        [/^Agents/, () => expect(panel.getByText(`a11y-agent-${stamp}`).first()).toBeVisible()],
        ['Grading', () => expect(panel.getByRole('textbox', { name: "Grader's name or label" })).toBeVisible()],
        ['Exports', () => expect(panel.getByRole('list', { name: 'Exports' })).toBeVisible()],
        ['Audit log', () => expect(panel.getByText('Every exclusion, inclusion and deletion')).toBeVisible()],
      ];
      for (const [tab, loaded] of tabs) {
        await page.getByRole('tab', { name: tab }).click();
        await expect(page.getByRole('tab', { name: tab })).toHaveAttribute('aria-selected', 'true');
        await loaded();
        await expectAccessible(page, at(`results: ${String(tab)}`));
      }

      await page.goto(`/studies/${STUDY}/sessions/${sessionId}`);
      await expect(page.getByTestId('replay-position')).toBeVisible();
      await expectAccessible(page, at('replay: first item'));
      await page.getByRole('list', { name: 'Items' }).getByRole('button', { name: /^grid/ }).click();
      await expect(page.getByTestId('replay-grid')).toBeVisible();
      await page.getByRole('button', { name: /^Demonstrations/ }).click();
      await expect(page.getByTestId('replay-demos')).toBeVisible();
      await expectAccessible(page, at('replay: grid task'));
      await page.getByRole('list', { name: 'Items' }).getByRole('button', { name: /^push/ }).click();
      await expect(page.getByTestId('replay-frame')).toBeVisible();
      await expectAccessible(page, at('replay: game'));

      await page.goto(`/studies/${STUDY}/agents/${fixture.agentGuid}`);
      await expect(page.getByTestId('replay-frame')).toBeVisible();
      await expectAccessible(page, at('agent replay'));

      await page.goto(`/studies/${STUDY}/edit`);
      await expect(page.getByRole('button', { name: 'Save study' })).toBeVisible();
      await expectAccessible(page, at('study editor'));
      await page.goto('/studies/new');
      await expect(page.getByRole('button', { name: 'Save study' })).toBeVisible();
      await expectAccessible(page, at('new study'));
      await page.goto(`/studies/${POOL_STUDY}/campaign`);
      await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
      await expect(page.getByText('count-objects-bar').first()).toBeVisible();
      await expectAccessible(page, at('campaign'));

      await page.goto('/score');
      await expect(page.getByRole('combobox', { name: 'Baselines from a study' })).toBeVisible();
      await expectAccessible(page, at('score page'));
      await page.goto('/games');
      await expect(page.getByRole('link', { name: /push/ }).first()).toBeVisible();
      await expectAccessible(page, at('games page'));
      await page.goto('/games/push');
      await expect(page.getByTestId('game-canvas')).toBeVisible();
      await expectAccessible(page, at('game player'));
      await page.goto('/games/push/playtest');
      await expect(page.getByTestId('game-canvas')).toBeVisible();
      await expectAccessible(page, at('playtest'));
      await page.goto('/');
      await expect(page.getByRole('list', { name: 'Collections' })).toBeVisible();
      await expectAccessible(page, at('task browser'));
      await page.goto(`/tasks/arc-agi-1/${TASK}`);
      await expect(page.getByTestId('input-grid')).toBeVisible();
      await expectAccessible(page, at('task player'));
      await page.goto(fixture.graderPath);
      await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
      await expectAccessible(page, at('grader page'));
      await page.goto('/no-such-page');
      await expectAccessible(page, at('missing page'));
    });
  });
}
