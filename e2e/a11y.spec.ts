/**
 * Every page of the app, participant and studio alike, checked with axe-core (no violation of
 * any impact of WCAG 2.1 AA or of axe's best practices) at three sizes: a laptop (1280x800), a tablet (768x1024) and
 * a phone (390x844). Each page is reached once, as a person reaches it, with its data loaded; the
 * window is then resized on that page for the other sizes (the app's layout follows the window's
 * size through CSS and media queries that listen for changes, so a resized page is the page a
 * smaller screen loads). Only the device check reads the pointer, so only it gets a touch phone of
 * its own. Keyboard focus is checked at the laptop size.
 *
 * What is walked: the participant's consent, instructions, every item kind (page, grid task, game,
 * question with choices, answered, with typeset math, a question block, a survey before and after
 * a missing answer), the give-up and withdraw dialogs, every stop page (end, time up on an item,
 * the session's time spent, withdrawn, declined, unknown study, a screen too small); the studio's
 * login, studies, every results tab (members too) and its dialogs, the replays of a session and
 * of an agent's run, My tokens and the header's account menu, the editor with its task picker and
 * dialogs, a new study, the campaign, a testing centre's console, station and payout sheet, the score page, the games with every game's player, the
 * playtest with its validate panel, the task browser,
 * the task player with its pair viewer, the grader's page and the missing page.
 */
import { expect, test, type Browser, type Page } from './studio-test';
import { games } from '../src/games';
import { giveUpItem } from './arc3-helpers';
import { expectAccessible } from './axe';
import { openTask, setWindowSize } from './helpers';
import { ADMIN } from './study-helpers';

const LAPTOP = { width: 1280, height: 800 };
const TABLET = { width: 768, height: 1024 };
const PHONE = { width: 390, height: 844 };
const SIZES = [LAPTOP, TABLET, PHONE] as const;

const stamp = Date.now().toString(36);
const STUDY = `a11y-walk-${stamp}`;
const POOL_STUDY = `a11y-pool-${stamp}`;
const LIMITS_STUDY = `a11y-limits-${stamp}`;

/** What the studio pages need, made once per worker (on the worker's server) through the API. */
interface Fixture {
  graderPath: string;
  agentGuid: string;
}
let fixture: Fixture | undefined;

test.use({ viewport: LAPTOP });

/**
 * The workers split the file's tests. `beforeAll` then runs before each share a worker takes, and
 * makes the studies only the first time in that worker.
 */
test.describe.configure({ mode: 'parallel' });

test.beforeAll(async ({ request }) => {
  if (fixture) return;
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
      {
        kind: 'question',
        id: 'block',
        questions: [
          { collection: 'science', question: 'sci-004' },
          { collection: 'arb-sample', question: 'arb-phys-1' },
        ],
      },
      {
        kind: 'survey',
        id: 'about',
        title: 'About you',
        questions: [
          { id: 'age', prompt: 'How old are you?', type: 'number', required: true },
          { id: 'hand', prompt: 'Which hand do you write with?', type: 'choice', options: ['Left', 'Right'] },
          { id: 'ease', prompt: 'How hard was it?', type: 'scale', min: 1, max: 5, labels: ['Easy', 'Hard'] },
          { id: 'notes', prompt: 'Anything else?', type: 'longtext' },
        ],
      },
    ],
    completion: { code: 'A11Y-WALK' },
    decline: { message: 'Thank you all the same.', code: 'A11Y-NO' },
    withdraw: { code: 'A11Y-W' },
  };
  const saved = await request.post(`/api/admin/studies/${STUDY}`, { headers: ADMIN, data: { definition } });
  expect(saved.status(), await saved.text()).toBe(201);
  const pool = {
    title: 'A pool, accessible',
    consent: 'You agree.',
    completion: { code: 'A11Y-POOL' },
    campaign: { id: `a11y-campaign-${stamp}` },
    payment: { currency: 'GBP', fee: 3, bonus: { perSolve: 0.5, perLevel: 0 } },
    items: [
      {
        kind: 'pool',
        id: 'pool',
        draw: 1,
        candidates: [
          { kind: 'task', id: 'count', collection: 'samples', task: 'count-objects-bar' },
          { kind: 'task', id: 'down', collection: 'samples', task: 'downscale-blocks' },
        ],
      },
    ],
  };
  const poolSaved = await request.post(`/api/admin/studies/${POOL_STUDY}`, {
    headers: ADMIN,
    data: { definition: pool },
  });
  expect(poolSaved.status(), await poolSaved.text()).toBe(201);
  // Tiny limits of the study's own: the browser's clock is moved past them (the server still sees
  // time left, so the unfinished session is flagged rather than refused its code).
  const limits = {
    title: 'Time limits, accessible',
    consent: 'You agree.',
    instructions: 'Go.',
    completion: { code: 'A11Y-TIME', unfinished: 'flag' },
    limits: { sessionMinutes: 3 },
    items: [
      { kind: 'task', id: 'grid', collection: 'samples', task: 'downscale-blocks', softMinutes: 0.5, hardMinutes: 1 },
      { kind: 'game', id: 'push', game: 'push' },
    ],
  };
  const limitsSaved = await request.post(`/api/admin/studies/${LIMITS_STUDY}`, {
    headers: ADMIN,
    data: { definition: limits },
  });
  expect(limitsSaved.status(), await limitsSaved.text()).toBe(201);

  const grader = await request.post(`/api/admin/studies/${STUDY}/graders`, {
    headers: ADMIN,
    data: { label: 'Grader A' },
  });
  expect(grader.status(), await grader.text()).toBe(201);
  const { path } = (await grader.json()) as { path: string };

  // An agent's run of push on the study's scorecard, over the ARC-AGI-3 protocol.
  const keyRes = await request.post('/api/admin/agent-keys', { headers: ADMIN, data: { name: `a11y-agent-${stamp}` } });
  expect(keyRes.status(), await keyRes.text()).toBe(201);
  const agent = { 'X-API-Key': ((await keyRes.json()) as { key: string }).key };
  const card = (
    (await (
      await request.post('/api/scorecard/open', { headers: agent, data: { tags: [`study:${STUDY}`] } })
    ).json()) as { card_id: string }
  ).card_id;
  const gameId = ((await (await request.get('/api/games/push', { headers: agent })).json()) as { game_id: string })
    .game_id;
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

/**
 * axe at each of the three sizes, starting from the window's present size (a page left at the
 * phone's size is checked phone first), so the window never changes size for nothing.
 */
async function expectAccessibleAtEachSize(page: Page, name: string): Promise<void> {
  const order = page.viewportSize()?.width === PHONE.width ? [...SIZES].reverse() : SIZES;
  for (const size of order) {
    await setWindowSize(page, size);
    await expectAccessible(page, `${name} at ${size.width}`, undefined, 'all');
  }
}

/** What had the keyboard's focus after each Tab (`expectVisibleFocus`), kept in the page. */
interface FocusWatch {
  seen: { shown: boolean; what: string }[];
  stop(): void;
}

/**
 * Tabs through the page at the laptop's size and checks that every control the keyboard reaches
 * draws a focus indicator: an outline or a ring (box-shadow). The page looks at the focused
 * element itself when each Tab's key comes up (focus has moved by then), so the presses follow
 * each other without a trip to the page between them.
 */
async function expectVisibleFocus(page: Page, name: string, presses = 40): Promise<void> {
  await setWindowSize(page, LAPTOP);
  await page.evaluate(() => {
    (document.activeElement as HTMLElement | null)?.blur();
    const seen: FocusWatch['seen'] = [];
    const look = (e: KeyboardEvent) => {
      if (e.key !== 'Tab') return;
      const el = document.activeElement as HTMLElement | null;
      if (!el || el === document.body) return;
      const style = getComputedStyle(el);
      const shown = (style.outlineStyle !== 'none' && parseFloat(style.outlineWidth) > 0) || style.boxShadow !== 'none';
      const text = (el.getAttribute('aria-label') ?? el.textContent ?? '').trim().slice(0, 40);
      seen.push({ shown, what: `${el.tagName.toLowerCase()} "${text}"` });
    };
    // On the window, capturing: before any handler of the page can stop the event.
    window.addEventListener('keyup', look, true);
    (window as unknown as { focusWatch: FocusWatch }).focusWatch = {
      seen,
      stop: () => window.removeEventListener('keyup', look, true),
    };
  });
  for (let i = 0; i < presses; i++) await page.keyboard.press('Tab');
  const seen = await page.evaluate(() => {
    const watch = (window as unknown as { focusWatch: FocusWatch }).focusWatch;
    watch.stop();
    return watch.seen;
  });
  const unmarked = new Set(seen.filter((f) => !f.shown).map((f) => f.what));
  expect.soft(seen.length, `the keyboard reaches controls on ${name}`).toBeGreaterThan(0);
  expect.soft([...unmarked], `controls without a visible focus indicator on ${name}`).toEqual([]);
}

/** Waits for the study item with this id to be on screen. */
async function atItem(page: Page, id: string): Promise<void> {
  await expect(page.locator(`[data-item="${id}"]`)).toBeVisible();
}

/** A participant's own browser at the laptop's size; the end page's move to the recruiter is kept from leaving. */
async function participant(browser: Browser): Promise<Page> {
  const context = await browser.newContext({ viewport: LAPTOP });
  const page = await context.newPage();
  await page.route('https://app.prolific.com/**', (route) => route.fulfill({ status: 204 }));
  return page;
}

/**
 * The results and replays read the session the participant's walk finishes: the two run in order,
 * in one worker (and so on one server). The studio's other pages need no participant and run
 * beside them in another worker.
 */
test.describe("a participant's walk, then the studio's pages of that session", () => {
  test.describe.configure({ mode: 'default' });

  test('every participant page is accessible: consent, instructions, each item kind, the dialogs and the stop pages', async ({
    page,
    browser,
  }) => {
    test.setTimeout(300_000);
    await page.route('https://app.prolific.com/**', (route) => route.fulfill({ status: 204 }));
    await page.goto(`/s/${STUDY}?PROLIFIC_PID=walk-${stamp}`);
    await expect(page.getByRole('button', { name: 'I agree, start' })).toBeVisible();
    await expect(page.getByRole('main')).toHaveCount(1);
    await expectAccessibleAtEachSize(page, 'consent');
    await page.getByRole('button', { name: 'I agree, start' }).click();
    await expect(page.getByRole('heading', { name: 'Instructions' })).toBeVisible();
    await expectAccessibleAtEachSize(page, 'instructions');
    await page.getByRole('button', { name: 'Begin' }).click();

    await atItem(page, 'welcome');
    await expectAccessibleAtEachSize(page, 'page item');
    await page.getByRole('button', { name: 'Continue', exact: true }).click();

    await atItem(page, 'grid');
    await expect(page.getByTestId('input-grid')).toBeVisible();
    await expectAccessibleAtEachSize(page, 'task item');
    await page.getByRole('button', { name: /^(Give up|Finish) and continue$/ }).click();
    await expect(page.getByRole('dialog')).toBeVisible();
    await expectAccessibleAtEachSize(page, 'give up dialog');
    await page
      .getByRole('dialog')
      .getByRole('button', { name: /^(Give up|Finish) and move on$/ })
      .click();

    await atItem(page, 'push');
    await expect(page.getByTestId('game-canvas')).toBeVisible();
    await expectAccessibleAtEachSize(page, 'game item');
    await giveUpItem(page);

    await atItem(page, 'choice');
    await expect(page.getByRole('radio').first()).toBeVisible();
    await expectAccessibleAtEachSize(page, 'question item: choices');
    await page.getByRole('radio').first().check();
    await page.getByRole('button', { name: 'Submit answer' }).click();
    await expect(page.getByRole('status').filter({ hasText: 'Your answer is recorded.' })).toBeVisible();
    await expectAccessibleAtEachSize(page, 'question item: answered');
    await page.getByRole('button', { name: 'Next', exact: true }).click();

    await atItem(page, 'proof');
    await expect(page.getByRole('textbox', { name: /^Your answer/ })).toBeVisible();
    await expect(page.getByTestId('question-prompt').locator('.katex').first()).toBeVisible();
    await expectAccessibleAtEachSize(page, 'question item: free response with typeset math');
    await page.getByRole('textbox', { name: /^Your answer/ }).fill('By induction on n.');
    await page.getByRole('button', { name: 'Submit answer' }).click();
    await expect(page.getByRole('status').filter({ hasText: 'Your answer is recorded.' })).toBeVisible();
    await page.getByRole('button', { name: 'Next', exact: true }).click();

    await atItem(page, 'block');
    await expect(page.getByTestId('block-question')).toHaveCount(2);
    await expectVisibleFocus(page, 'question block');
    await expectAccessibleAtEachSize(page, 'question block');
    await giveUpItem(page);

    await atItem(page, 'about');
    await expect(page.getByRole('heading', { name: 'About you' })).toBeVisible();
    await expectAccessibleAtEachSize(page, 'survey');
    await page.getByRole('button', { name: 'Submit answers' }).click();
    await expect(page.getByText('needs an answer')).toBeVisible();
    await expectVisibleFocus(page, 'survey');
    await expectAccessibleAtEachSize(page, 'survey with a problem named');
    await page.getByLabel('How old are you?').fill('30');
    await page.getByRole('button', { name: 'Submit answers' }).click();

    await expect(page.getByTestId('completion-code')).toHaveText('A11Y-WALK');
    await expect(page.getByRole('main')).toHaveCount(1);
    await expectAccessibleAtEachSize(page, 'end page');

    // A second participant withdraws; a third declines, then opens a study the server does not have.
    const p2 = await participant(browser);
    await p2.goto(`/s/${STUDY}?PROLIFIC_PID=withdraw-${stamp}`);
    await p2.getByRole('button', { name: 'I agree, start' }).click();
    await p2.getByRole('button', { name: 'Begin' }).click();
    await atItem(p2, 'welcome');
    await p2.getByRole('button', { name: 'Withdraw from study' }).click();
    await expect(p2.getByRole('dialog', { name: 'Withdraw from the study?' })).toBeVisible();
    await expectVisibleFocus(p2, 'withdraw dialog', 12);
    await expectAccessibleAtEachSize(p2, 'withdraw dialog');
    await p2.getByRole('radio', { name: 'Another reason' }).check();
    await p2.getByRole('button', { name: 'Withdraw', exact: true }).click();
    await expect(p2.getByTestId('withdraw-code')).toHaveText('A11Y-W');
    await expectAccessibleAtEachSize(p2, 'withdrawn page');
    await p2.context().close();

    const p3 = await participant(browser);
    await p3.goto(`/s/${STUDY}?PROLIFIC_PID=decline-${stamp}`);
    await p3.getByRole('button', { name: 'I do not agree' }).click();
    await expect(p3.getByTestId('declined')).toBeVisible();
    await expectAccessibleAtEachSize(p3, 'declined page');
    await p3.goto(`/s/no-such-study-${stamp}`);
    await expect(p3.getByTestId('study-error')).toBeVisible();
    await expectAccessibleAtEachSize(p3, 'unknown study');
    await p3.context().close();

    // A touch phone at a study that needs a larger screen: the one page that reads the pointer.
    const phone = await browser.newContext({ viewport: PHONE, hasTouch: true, isMobile: true });
    const p4 = await phone.newPage();
    await p4.goto('/s/sample');
    await expect(p4.getByTestId('device-message')).toBeVisible();
    await expectAccessible(p4, 'device message at 390', undefined, 'all');
    await phone.close();
  });

  test('the walked session in the studio is accessible: every results tab, its dialogs and the replays', async ({
    page,
    request,
  }) => {
    test.setTimeout(300_000);
    // A finished session of the walk (the participant test made one).
    const sessions = async () =>
      (
        (await (await request.get(`/api/admin/sessions?study=${STUDY}`, { headers: ADMIN })).json()) as {
          sessions: { id: string; state: string }[];
        }
      ).sessions;
    await expect
      .poll(async () => (await sessions()).some((s) => s.state === 'finished'), { timeout: 60_000 })
      .toBe(true);
    const sessionId = (await sessions()).find((s) => s.state === 'finished')!.id;

    await page.goto(`/login#token=${process.env.E2E_ADMIN_TOKEN}`);
    // The login page keeps the token once its script has run: wait for it before leaving.
    await expect(page.getByRole('heading', { name: 'Studies' })).toBeVisible();
    await page.goto(`/studies/${STUDY}`);
    await expect(page.getByRole('table', { name: 'Participants' })).toBeVisible();
    await expectVisibleFocus(page, 'results');
    await expectAccessibleAtEachSize(page, 'results: participants');
    // Each tab with what shows that its data has come.
    const panel = page.getByRole('tabpanel');
    const tabs: [string | RegExp, () => Promise<void>][] = [
      ['Grid tasks', () => expect(panel.getByRole('table', { name: 'Grid tasks' })).toBeVisible()],
      [
        'Game levels',
        async () => {
          await expect(panel.getByTestId('funnel')).toBeVisible();
          await expect(panel.getByTestId('no-clicks')).toBeVisible();
        },
      ],
      ['Questions', () => expect(panel).toContainText('sci-004')],
      ['Surveys', () => expect(panel.getByTestId('survey-about').getByTestId('respondents')).toBeVisible()],
      [/^Agents/, () => expect(panel.getByText(`a11y-agent-${stamp}`).first()).toBeVisible()],
      ['Grading', () => expect(panel.getByRole('textbox', { name: "Grader's name or label" })).toBeVisible()],
      ['Exports', () => expect(panel.getByRole('list', { name: 'Exports' })).toBeVisible()],
      ['Audit log', () => expect(panel.getByText('Every exclusion, inclusion and deletion')).toBeVisible()],
      ['Members', () => expect(panel.getByText('This study has no members yet.')).toBeVisible()],
    ];
    for (const [tab, loaded] of tabs) {
      await page.getByRole('tab', { name: tab }).click();
      await expect(page.getByRole('tab', { name: tab })).toHaveAttribute('aria-selected', 'true');
      await loaded();
      await expectAccessibleAtEachSize(page, `results: ${String(tab)}`);
    }
    await page.getByRole('tab', { name: /^Participants/ }).click();
    await page
      .getByRole('button', { name: /^Exclude session / })
      .first()
      .click();
    await expect(page.getByRole('dialog', { name: /^Exclude session / })).toBeVisible();
    await expectAccessibleAtEachSize(page, 'exclude session dialog');
    await page.keyboard.press('Escape');
    await expect(page.getByRole('dialog')).toHaveCount(0);
    await page
      .getByRole('button', { name: /^Delete session / })
      .first()
      .click();
    await expect(page.getByRole('dialog', { name: /^Delete session / })).toBeVisible();
    await expectAccessibleAtEachSize(page, 'delete session dialog');
    await page.keyboard.press('Escape');
    await expect(page.getByRole('dialog')).toHaveCount(0);

    await page.goto(`/studies/${STUDY}/sessions/${sessionId}`);
    await expect(page.getByTestId('replay-position')).toBeVisible();
    await expectAccessibleAtEachSize(page, 'replay: first item');
    await page.getByRole('list', { name: 'Items' }).getByRole('button', { name: /^grid/ }).click();
    await expect(page.getByTestId('replay-grid')).toBeVisible();
    await page.getByRole('button', { name: /^Demonstrations/ }).click();
    await expect(page.getByTestId('replay-demos')).toBeVisible();
    await expectAccessibleAtEachSize(page, 'replay: grid task');
    await page.getByRole('list', { name: 'Items' }).getByRole('button', { name: /^push/ }).click();
    await expect(page.getByTestId('replay-frame')).toBeVisible();
    await expectAccessibleAtEachSize(page, 'replay: game');
  });
});

/** The studio pages that need no participant: they run beside the walk, in another worker. */
test("every other studio page is accessible: login, studies, an agent's replay, editor, campaign, score, playtest, grading", async ({
  page,
}) => {
  test.setTimeout(300_000);
  await page.goto('/login');
  await expect(page.getByRole('heading', { name: 'Researcher login' })).toBeVisible();
  await expectAccessibleAtEachSize(page, 'login');
  // A new document, so that the login page reads the token from the link.
  await page.goto('about:blank');
  await page.goto(`/login#token=${process.env.E2E_ADMIN_TOKEN}`);
  await expect(page.getByRole('heading', { name: 'Studies' })).toBeVisible();
  await expect(page.getByRole('link', { name: 'Every page, accessible' })).toBeVisible();
  await expectAccessibleAtEachSize(page, 'studies list');

  await page.goto('/tokens');
  await expect(page.getByRole('heading', { name: 'My tokens' })).toBeVisible();
  await expectAccessibleAtEachSize(page, 'my tokens (researcher token)');
  await setWindowSize(page, PHONE);
  await page.getByTestId('signed-in').getByText('Account').click();
  await expect(page.getByTestId('signed-in').getByRole('link', { name: 'My tokens' })).toBeVisible();
  await expectAccessibleAtEachSize(page, 'account menu');
  await setWindowSize(page, LAPTOP);

  await page.goto(`/studies/${STUDY}/agents/${fixture!.agentGuid}`);
  await expect(page.getByTestId('replay-frame')).toBeVisible();
  await expectAccessibleAtEachSize(page, 'agent replay');

  await page.goto(`/studies/${STUDY}/edit`);
  await expect(page.getByRole('button', { name: 'Save study' })).toBeVisible();
  await expectVisibleFocus(page, 'study editor', 60);
  await expectAccessibleAtEachSize(page, 'study editor');
  await page
    .getByRole('button', { name: /^Task / })
    .first()
    .click();
  await expect(page.getByTestId('task-picker-chosen')).toBeVisible();
  await expectAccessibleAtEachSize(page, 'task picker');
  await page.keyboard.press('Escape');
  await expect(page.getByTestId('task-picker')).toHaveCount(0);
  await page.getByRole('button', { name: 'Delete study' }).click();
  await expect(page.getByRole('dialog', { name: `Delete study ${STUDY}?` })).toBeVisible();
  await expectAccessibleAtEachSize(page, 'delete study dialog');
  await page.keyboard.press('Escape');
  await expect(page.getByRole('dialog')).toHaveCount(0);
  await page.goto('/studies/new');
  await expect(page.getByRole('button', { name: 'Save study' })).toBeVisible();
  await expectAccessibleAtEachSize(page, 'new study');
  await page.goto(`/studies/${POOL_STUDY}/campaign`);
  await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
  await expect(page.getByText('count-objects-bar').first()).toBeVisible();
  await expectAccessibleAtEachSize(page, 'campaign');

  // A testing centre: the console with a station, the station's own page, the payout sheet.
  await page.goto(`/studies/${POOL_STUDY}/centre`);
  await expect(page.getByRole('heading', { name: /Testing centre/ })).toBeVisible();
  await page.getByLabel('New station').fill(`a11y-${stamp}`);
  await page.getByRole('button', { name: 'Add station' }).click();
  await expect(page.getByTestId(`station-a11y-${stamp}`)).toBeVisible();
  await expectAccessibleAtEachSize(page, 'testing centre console');
  const link = (await page.getByTestId('station-link').textContent())!;
  await page.goto(`/studies/${POOL_STUDY}/centre/payouts`);
  await expect(page.getByTestId('payout-sheet')).toBeVisible();
  await expectAccessibleAtEachSize(page, 'payout sheet');
  await page.goto(link);
  await expect(page.getByRole('heading', { name: 'Check in' })).toBeVisible();
  await expectAccessibleAtEachSize(page, 'station check-in');
  await page.evaluate(() => localStorage.removeItem('arc-studio.station'));

  await page.goto('/score');
  await page.getByRole('combobox', { name: 'Baselines from a study' }).selectOption(STUDY);
  await expect(page.getByText(`Using study:${STUDY}`)).toBeVisible();
  await expectAccessibleAtEachSize(page, 'score page');

  await page.goto('/games/push/playtest');
  await expect(page.getByTestId('game-canvas')).toBeVisible();
  await expectAccessibleAtEachSize(page, 'playtest');
  await setWindowSize(page, LAPTOP);
  await page.getByRole('button', { name: 'Validate…' }).click();
  const validate = page.getByTestId('validate-panel');
  await expect(validate).toBeVisible();
  await validate.getByLabel('Steps', { exact: true }).selectOption('10000');
  await validate.getByRole('button', { name: 'Validate', exact: true }).click();
  await expect(validate.getByTestId('validate-status')).toContainText('Finished', { timeout: 60_000 });
  await expectAccessibleAtEachSize(page, 'playtest: validate panel');

  await page.goto(fixture!.graderPath);
  await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
  await expectAccessibleAtEachSize(page, 'grader page');
});

test('the time-up pages are accessible: an item closed by its hard limit and a session whose time is spent', async ({
  page,
}) => {
  await page.route('https://app.prolific.com/**', (route) => route.fulfill({ status: 204 }));
  await page.clock.install();
  await page.goto(`/s/${LIMITS_STUDY}?PROLIFIC_PID=limits-${stamp}`);
  await page.getByRole('button', { name: 'I agree, start' }).click();
  await page.getByRole('button', { name: 'Begin' }).click();
  await expect(page.getByTestId('output-grid')).toBeVisible();
  // The item's hard limit is a minute.
  await page.clock.fastForward('01:05');
  const timeUp = page.getByRole('alertdialog', { name: 'Time is up for this item' });
  await expect(timeUp).toBeVisible();
  await expectAccessibleAtEachSize(page, 'item time up');
  await timeUp.getByRole('button', { name: 'Continue' }).click();

  // The session's three minutes run out on the game (the budget is read again from the server's
  // clock on the way to it, which has not moved: the browser's is moved past all of it).
  await expect(page.getByTestId('game-canvas')).toBeVisible();
  await page.clock.fastForward('03:05');
  await expect(page.getByTestId('session-time-up')).toContainText('The study allows 3 minutes in all');
  await expect(page.getByTestId('completion-code')).toHaveText('A11Y-TIME');
  await expectAccessibleAtEachSize(page, 'session time up');
});

test('the task browser, the task player with its pair viewer, the games, every game and the missing page are accessible', async ({
  page,
}) => {
  // axe over the browser of 800 tasks took over two minutes on a busy machine.
  test.setTimeout(300_000);
  await page.goto('/');
  await expect(page.getByRole('list', { name: 'Collections' })).toBeVisible();
  await expectAccessibleAtEachSize(page, 'task browser');
  await setWindowSize(page, LAPTOP);
  await page
    .getByRole('list', { name: 'Collections' })
    .getByRole('button', { name: /arc-agi-1/ })
    .click();
  await expect(page.getByTestId('task-count')).toHaveText('800 tasks');
  await expectAccessible(page, 'task browser with 800 tasks at 1280', undefined, 'all');
  await expectVisibleFocus(page, 'task browser');

  await openTask(page, 'arc-agi-1', 'training/007bbfb7');
  await expectVisibleFocus(page, 'task player');
  await expectAccessibleAtEachSize(page, 'task player');
  await setWindowSize(page, LAPTOP);
  await page.getByRole('button', { name: 'Enlarge example 1' }).click();
  await expect(page.getByTestId('pair-viewer')).toBeVisible();
  await expectAccessibleAtEachSize(page, 'pair viewer');
  await page.keyboard.press('Escape');
  await expect(page.getByTestId('pair-viewer')).toHaveCount(0);

  await page.goto('/games');
  await expect(page.getByRole('link', { name: /push/ }).first()).toBeVisible();
  await expectAccessibleAtEachSize(page, 'games page');
  // Every game's player at one size; push's at each.
  for (const id of Object.keys(games)) {
    await page.goto(`/games/${id}`);
    await expect(page.getByTestId('game-level')).toHaveText(`1 / ${games[id].levels.length}`);
    await expect(page.getByTestId('game-canvas')).toBeVisible();
    if (id === 'push') await expectAccessibleAtEachSize(page, 'game player: push');
    else await expectAccessible(page, `game player: ${id} at ${page.viewportSize()!.width}`, undefined, 'all');
  }
  await expectVisibleFocus(page, 'game player');

  await page.goto('/no-such-page');
  await expectAccessibleAtEachSize(page, 'missing page');
});
