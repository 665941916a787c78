/**
 * Calibration campaigns in the browser: a researcher builds a pool in the study editor, two
 * participants run it side by side, the campaign view follows them live, and the bonus file
 * downloads; and a participant is shown the session's time budget, with a clean end when it is
 * spent (time moved by Playwright's clock, not waited for).
 */
import { readFile } from 'node:fs/promises';
import { expect, test, type Page } from './studio-test';
import { expectAccessible } from './axe';
import { setWindowSize, picture } from './helpers';
import { ADMIN, completeCurrentItem, finishStudy, playGame, serverEvents, type StudyFile } from './study-helpers';

// The tests share nothing but the worker's server: the workers split them (`playwright.config.ts`).
test.describe.configure({ mode: 'parallel' });

/** The study's items as a participant meets them: each pool's candidates in its place. */
function runnable(def: {
  items: { kind: string; candidates?: StudyFile['items'] }[];
  completion: { code: string };
}): StudyFile {
  return {
    items: def.items.flatMap((i) => (i.kind === 'pool' ? (i.candidates ?? []) : [i as StudyFile['items'][number]])),
    completion: def.completion,
  };
}

const SIZES = [
  { width: 1280, height: 800 },
  { width: 768, height: 1024 },
] as const;
/** A computer, a tablet and a phone. */
const EVERY_SIZE = [...SIZES, { width: 390, height: 844 }] as const;

/** A participant opens the study link, agrees and begins. */
async function begin(page: Page, id: string, pid: string): Promise<void> {
  await page.goto(`/s/${id}?PROLIFIC_PID=${pid}`);
  await page.getByRole('button', { name: 'I agree, start' }).click();
  await page.getByRole('button', { name: 'Begin' }).click();
  await expect(page.locator('[data-item]')).toBeVisible();
}

test('a researcher builds a pool in the editor, two participants run it, the campaign view follows them live, and the bonus file downloads', async ({
  page,
  browser,
  request,
}) => {
  const stamp = Date.now().toString(36);
  const id = `e2e-pool-${stamp}`;
  await page.goto(`/login#token=${process.env.E2E_ADMIN_TOKEN}`);
  await page.getByRole('link', { name: 'New study' }).click();
  await page.getByRole('textbox', { name: /Study id/ }).fill(id);
  await page.getByRole('textbox', { name: 'Study title' }).fill('Pool study');
  await page.getByRole('textbox', { name: 'Consent (Markdown)' }).fill('You agree to take part.');
  await page.getByRole('button', { name: 'Add page' }).click();
  await page.getByLabel('Page text (Markdown)').fill('Welcome. Press continue.');
  await page.getByRole('button', { name: 'Add pool' }).click();
  const pool = page.getByTestId('pool-pool-2');
  await expect(pool.getByText('Add at least one candidate')).toBeVisible();

  // The picker: a search, "select all" on the results, a box to tick, the count of the selection.
  await pool.getByRole('button', { name: 'Add candidates…' }).click();
  const picker = page.getByTestId('candidate-picker');
  await expect(picker.getByTestId('candidate-picker-count')).toHaveText(/^\d+ of \d+ · 0 selected$/);
  await picker.getByLabel('Search candidates').fill('count-objects');
  await picker.getByRole('button', { name: 'Select all 1 result' }).click();
  await picker.getByLabel('Search candidates').fill('downscale');
  await picker.getByRole('checkbox', { name: 'downscale-blocks' }).check();
  await expect(picker.getByTestId('candidate-picker-count')).toHaveText(/^1 of \d+ · 2 selected$/);
  await picker.getByRole('button', { name: 'Add 2 candidates' }).click();
  await expect(picker).toHaveCount(0);
  await expect(pool.getByTestId('pool-pool-2-count')).toHaveText('2 candidates');
  await expect(pool.getByText('Add at least one candidate')).toHaveCount(0);

  // A draw of 0 is refused beside the field, in words; 2 is fine.
  await pool.getByLabel('Candidates per participant').fill('0');
  await expect(pool.getByText('Give a whole number from 1 to 500')).toBeVisible();
  await pool.getByLabel('Candidates per participant').fill('2');
  await expect(pool.getByText('Give a whole number from 1 to 500')).toHaveCount(0);
  await expect(pool.getByLabel('Target per candidate')).toHaveValue('2');
  await expect(pool.getByRole('radio', { name: 'full solves by different participants' })).toBeChecked();

  await page.getByRole('textbox', { name: /^Campaign id/ }).fill(`e2e-campaign-${stamp}`);
  await page.getByRole('checkbox', { name: /pays a fee and bonuses/ }).check();
  await page.getByRole('spinbutton', { name: 'Fixed fee' }).fill('3');
  await page.getByRole('spinbutton', { name: 'Bonus per candidate solved' }).fill('0.5');
  await page.getByLabel('Completion code').fill('POOL-OK');
  await pool.scrollIntoViewIfNeeded();
  await picture(page, 'editor-pool');
  await page.setViewportSize({ width: 768, height: 1024 });
  await pool.scrollIntoViewIfNeeded();
  await picture(page, 'editor-pool-tablet');
  await page.setViewportSize({ width: 1280, height: 800 });

  // The JSON view writes exactly the study format.
  await page.getByRole('tab', { name: 'JSON' }).click();
  const written = JSON.parse(
    await page.getByRole('textbox', { name: 'Study definition (JSON)' }).inputValue(),
  ) as Record<string, unknown> & { items: unknown[] };
  expect(written.items[1]).toEqual({
    kind: 'pool',
    id: 'pool-2',
    title: '',
    draw: 2,
    target: { solves: 2 },
    candidates: [
      { kind: 'task', id: 'count-objects-bar', collection: 'samples', task: 'count-objects-bar' },
      { kind: 'task', id: 'downscale-blocks', collection: 'samples', task: 'downscale-blocks' },
    ],
  });
  expect(written.payment).toEqual({ currency: 'GBP', fee: 3, bonus: { perSolve: 0.5, perLevel: 0 } });
  expect(written.campaign).toEqual({ id: `e2e-campaign-${stamp}` });
  await page.getByRole('tab', { name: 'Form' }).click();
  await page.getByRole('button', { name: 'Save study' }).click();
  await expect(page.getByRole('status')).toContainText('Saved as version 1');
  const def = (await (await request.get(`/api/admin/studies/${id}`, { headers: ADMIN })).json()).definition;
  expect(def.items[1]).toMatchObject({ kind: 'pool', draw: 2, target: { solves: 2 } });
  const study = runnable(def);

  // The campaign view, reached from the study's results.
  await page.goto(`/studies/${id}`);
  await page.getByRole('link', { name: `Campaign of ${id}` }).click();
  await expect(page.getByRole('heading', { name: 'Campaign' })).toBeVisible();
  await expect(page.getByTestId('campaign-rule')).toContainText('2');
  // From here on the page is never loaded again: every change below comes from its own polling.
  let loads = 0;
  page.on('framenavigated', (f) => {
    if (f === page.mainFrame()) loads++;
  });
  const stats = page.getByTestId('campaign-stats');
  await expect(stats.getByText('Playing now').locator('..')).toContainText('0');
  await expect(page.getByTestId('target-count-objects-bar')).toHaveText('0/2 solves');
  // Nothing settled yet: no candidate's need can be estimated, and the page says how it would be.
  await expect(page.getByTestId('needed-count-objects-bar')).toHaveText('cannot be estimated yet (0 settled)');
  await expect(stats.getByText('Participants still needed').locator('..')).toContainText('cannot be estimated yet');
  await expect(page.getByTestId('campaign-estimate')).toContainText('never as certain solves');

  // Two participants, side by side.
  const a = await (await browser.newContext()).newPage();
  const b = await (await browser.newContext()).newPage();
  await begin(a, id, `pid-a-${stamp}`);
  await begin(b, id, `pid-b-${stamp}`);
  const live = page.getByRole('list', { name: 'Participants playing now' });
  await expect(live.getByRole('listitem')).toHaveCount(2);
  await expect(live).toContainText(`pid-a-${stamp}`);
  await expect(stats.getByText('Playing now').locator('..')).toContainText('2');
  // The first participant moves from the page onto a candidate: the view says which.
  await completeCurrentItem(a, study);
  const onA = await a.locator('[data-item]').getAttribute('data-item');
  await expect(live.getByRole('listitem').filter({ hasText: `pid-a-${stamp}` })).toContainText(`on ${onA}`);

  await finishStudy(a, study);
  await expect(a.getByTestId('completion-code')).toHaveText('POOL-OK');
  await expect(live.getByRole('listitem')).toHaveCount(1);
  await expect(page.getByTestId('target-count-objects-bar')).toHaveText('1/2 solves');
  await expect(page.getByTestId('target-downscale-blocks')).toHaveText('1/2 solves');

  await finishStudy(b, study);
  await expect(page.getByText('Nobody is playing right now.')).toBeVisible();
  for (const c of ['count-objects-bar', 'downscale-blocks']) {
    await expect(page.getByTestId(`target-${c}`)).toHaveText('2/2 solves');
    await expect(page.getByTestId(`status-${c}`)).toHaveText('meets the rule');
    await expect(page.getByTestId(`needed-${c}`)).toHaveText('0');
  }
  await expect(stats.getByText('Participants still needed').locator('..')).toContainText('0');
  await expect(page.getByText('The bonus file has one line per participant with a bonus')).toBeVisible();
  await expect(page.getByTestId('payments-total')).toContainText('£2.00 over 2 sessions');
  // Both solved alone, in the page, by hand: no signal of help or low effort.
  await expect(page.getByTestId('campaign-signals')).toContainText('No session shows a signal.');
  expect(loads).toBe(0);
  await picture(page, 'campaign');
  await page.getByRole('heading', { name: 'Payments' }).scrollIntoViewIfNeeded();
  await picture(page, 'campaign-payments');
  await page.setViewportSize({ width: 768, height: 1024 });
  await picture(page, 'campaign-tablet');
  await page.setViewportSize({ width: 1280, height: 800 });

  // The bonus file: one line per participant, as Prolific's bulk bonus takes it.
  const download = page.waitForEvent('download');
  await page.getByRole('button', { name: 'Download the bonus file (bonuses.csv)' }).click();
  const file = await download;
  expect(file.suggestedFilename()).toBe(`${id}-bonuses.csv`);
  const lines = (await readFile(await file.path(), 'utf8')).trim().split('\n').sort();
  expect(lines).toEqual([`pid-a-${stamp},1.00`, `pid-b-${stamp},1.00`]);

  // The payments: every session with its fee and bonus, and whether the bonus file pays it.
  const paymentsDownload = page.waitForEvent('download');
  await page.getByRole('button', { name: 'Download payments (CSV)' }).click();
  const rows = (await readFile(await (await paymentsDownload).path(), 'utf8')).trim().split('\r\n');
  expect(rows[0]).toBe('session_id,participant_id,stage,solved,levels,fee,bonus,currency,counts,reason,signals');
  expect(
    rows
      .slice(1)
      .map((r) => r.split(',').slice(1).join(','))
      .sort(),
  ).toEqual([`pid-a-${stamp},main,2,0,3.00,1.00,GBP,true,,`, `pid-b-${stamp},main,2,0,3.00,1.00,GBP,true,,`]);
});

test('the participant sees the time the session has left, and the study ends cleanly when it is spent', async ({
  page,
  request,
}) => {
  const id = `budget-${Date.now().toString(36)}`;
  const created = await request.post(`/api/admin/studies/${id}`, {
    headers: ADMIN,
    data: {
      definition: {
        // Only the browser's clock is moved on: the server still sees time left and the second game
        // not started, so the study flags the session unfinished rather than refusing its code.
        title: 'A short session',
        consent: 'You agree.',
        instructions: 'Go.',
        completion: { code: 'BUDGET-OK', unfinished: 'flag' },
        limits: { sessionMinutes: 2 },
        items: [
          { kind: 'game', id: 'push', game: 'push' },
          { kind: 'game', id: 'glow', game: 'glow' },
        ],
      },
    },
  });
  expect(created.status(), await created.text()).toBe(201);

  await page.clock.install();
  await page.goto(`/s/${id}?PROLIFIC_PID=budget-${Date.now().toString(36)}`);
  await page.getByRole('button', { name: 'I agree, start' }).click();
  await page.getByRole('button', { name: 'Begin' }).click();
  await expect(page.getByTestId('game-canvas')).toBeVisible();
  const left = page.getByTestId('session-time-left');
  await expect(left).toHaveText(/^(2:00|1:5\d)$/);
  await page.clock.fastForward('01:00');
  await expect(left).toHaveText(/^(1:00|0:5\d)$/);
  await picture(page, 'session-time-left');

  // The budget runs out on the game: the study ends there, says why, and gives the code.
  await page.clock.fastForward('01:05');
  await expect(page.getByTestId('session-time-up')).toContainText('The study allows 2 minutes in all');
  await expect(page.getByRole('heading', { name: 'Time is up. Thank you!' })).toBeVisible();
  await expect(page.getByTestId('completion-code')).toHaveText('BUDGET-OK');
  await picture(page, 'session-time-up');

  const results = (await (await request.get(`/api/admin/studies/${id}/results`, { headers: ADMIN })).json()) as {
    participants: { sessionId: string; state: string }[];
  };
  expect(results.participants).toHaveLength(1);
  const ends = (await serverEvents(request, results.participants[0].sessionId))
    .filter((e) => e.kind === 'item.end')
    .map((e) => [e.data.item, e.data.reason]);
  expect(ends).toEqual([['push', 'session_time']]);
});

test('the participant and the researcher see the candidates skipped for lack of time', async ({
  page,
  browser,
  request,
}) => {
  const stamp = Date.now().toString(36);
  const id = `skip-${stamp}`;
  // The second pool asks for all ten of the session's minutes to be left before a candidate
  // starts: once the session has begun that is never so, whatever the machine's speed.
  const definition = {
    title: 'Skipping',
    consent: 'You agree.',
    completion: { code: 'SKIP-OK' },
    limits: { sessionMinutes: 10 },
    items: [
      {
        kind: 'pool',
        id: 'first',
        draw: 1,
        target: { solves: 2 },
        minMinutesLeft: 1,
        candidates: [{ kind: 'task', id: 'first-task', collection: 'samples', task: 'downscale-blocks' }],
      },
      {
        kind: 'pool',
        id: 'later',
        draw: 2,
        target: { solves: 2 },
        minMinutesLeft: 10,
        candidates: [
          { kind: 'task', id: 'later-a', collection: 'samples', task: 'mirror-across-wall' },
          { kind: 'task', id: 'later-b', collection: 'samples', task: 'most-common-color' },
        ],
      },
      { kind: 'page', id: 'bye', markdown: 'Thank you. Press continue.' },
    ],
  };
  const created = await request.post(`/api/admin/studies/${id}`, { headers: ADMIN, data: { definition } });
  expect(created.status(), await created.text()).toBe(201);
  const study: StudyFile = {
    items: [...definition.items[0].candidates!, ...definition.items[1].candidates!].map((c) => ({
      kind: 'task' as const,
      id: c.id,
      collection: c.collection,
      task: c.task,
    })),
    completion: definition.completion,
  };

  const participant = await (await browser.newContext()).newPage();
  await begin(participant, id, `skip-${stamp}`);
  await expect(participant.locator('[data-item]')).toHaveAttribute('data-item', 'first-task');
  await expect(participant.getByTestId('study-skipped')).toHaveCount(0);
  await completeCurrentItem(participant, study);
  // Past the first candidate the study goes straight to the last page, and the header says why.
  await expect(participant.locator('[data-item]')).toHaveAttribute('data-item', 'bye');
  await expect(participant.getByTestId('study-skipped')).toHaveText('Skipped: not enough time left (2 items)');
  for (const size of [
    { width: 1280, height: 800 },
    { width: 390, height: 844 },
  ]) {
    await setWindowSize(participant, size);
    await expectAccessible(participant, `participant header with skipped items at ${size.width}`);
    await picture(participant, `skipped-participant-${size.width}`);
  }
  await completeCurrentItem(participant, study);
  await expect(participant.getByTestId('completion-code')).toHaveText('SKIP-OK');

  // The researcher's view of the session lists them too, in the same words.
  const results = (await (await request.get(`/api/admin/studies/${id}/results`, { headers: ADMIN })).json()) as {
    participants: { sessionId: string }[];
  };
  await page.goto(`/login#token=${process.env.E2E_ADMIN_TOKEN}`);
  // The login page keeps the token once its script has run: wait for it before leaving.
  await expect(page.getByRole('heading', { name: 'Studies' })).toBeVisible();
  await page.goto(`/studies/${id}/sessions/${results.participants[0].sessionId}`);
  const skipped = page.getByRole('list', { name: 'Skipped: not enough time left' });
  await expect(skipped.getByRole('listitem')).toHaveCount(2);
  for (const c of ['later-a', 'later-b'])
    await expect(page.getByTestId(`skipped-${c}`)).toContainText(`${c}Skipped: not enough time left`);
  await expect(page.getByRole('list', { name: 'Items', exact: true })).toContainText('first-task');
  for (const size of EVERY_SIZE) {
    await setWindowSize(page, size);
    await expectAccessible(page, `session replay with skipped items at ${size.width}`);
    await picture(page, `skipped-replay-${size.width}`);
  }
});

test('the pool editor, the candidate picker and the campaign view are accessible on a computer, a tablet and a phone', async ({
  page,
  browser,
  request,
}) => {
  const stamp = Date.now().toString(36);
  const id = `a11y-pool-${stamp}`;
  const created = await request.post(`/api/admin/studies/${id}`, {
    headers: ADMIN,
    data: {
      definition: {
        title: 'Accessible pool',
        consent: 'You agree.',
        completion: { code: 'A11Y' },
        payment: { currency: 'GBP', fee: 2, bonus: { perSolve: 1, perLevel: 0.25 } },
        attempt: { minActions: 0 },
        items: [
          {
            kind: 'pool',
            id: 'pool',
            title: 'Games',
            draw: 1,
            target: { solves: 2 },
            candidates: [
              { kind: 'game', id: 'push', game: 'push' },
              { kind: 'game', id: 'glow', game: 'glow' },
              { kind: 'game', id: 'flux', game: 'flux' },
            ],
          },
        ],
      },
    },
  });
  expect(created.status(), await created.text()).toBe(201);
  // One participant wins the first level of the game drawn and leaves it, so it has a funnel; another plays on.
  const player = await (await browser.newContext()).newPage();
  await begin(player, id, `a11y-done-${stamp}`);
  const game = (await player.locator('[data-item]').getAttribute('data-item'))!;
  await playGame(player, game, 1);
  await player.getByRole('button', { name: 'Finish and continue' }).click();
  await player
    .getByRole('dialog', { name: 'Finish this game?' })
    .getByRole('button', { name: 'Finish and move on' })
    .click();
  await expect(player.getByTestId('completion-code')).toHaveText('A11Y');
  const participant = await (await browser.newContext()).newPage();
  await begin(participant, id, `a11y-${stamp}`);

  await page.goto(`/login#token=${process.env.E2E_ADMIN_TOKEN}`);
  // The login page keeps the token once its script has run: wait for it before leaving.
  await expect(page.getByRole('heading', { name: 'Studies' })).toBeVisible();
  // Each page is loaded once and checked at each size (`setWindowSize`).
  await page.goto(`/studies/${id}/edit`);
  await expect(page.getByTestId('pool-pool-count')).toHaveText('3 candidates');
  for (const size of EVERY_SIZE) {
    await setWindowSize(page, size);
    await expectAccessible(page, `study editor with a pool at ${size.width}x${size.height}`);
  }
  await page.getByRole('button', { name: 'Add candidates…' }).click();
  await expect(page.getByTestId('candidate-picker-count')).toHaveText(/selected$/);
  for (const size of EVERY_SIZE) {
    await setWindowSize(page, size);
    await expectAccessible(page, `candidate picker at ${size.width}x${size.height}`);
    await picture(page, `candidate-picker-${size.width}`);
  }
  await page.getByRole('button', { name: 'Cancel' }).click();
  await expect(page.getByTestId('candidate-picker')).toHaveCount(0);

  await page.goto(`/studies/${id}/campaign`);
  await expect(page.getByRole('table', { name: 'Candidates' })).toBeVisible();
  await expect(page.getByRole('list', { name: 'Participants playing now' }).getByRole('listitem')).toHaveCount(1);
  await page.getByRole('button', { name: `Details of ${game}` }).click();
  await expect(page.getByTestId('funnel-level-1')).toContainText('1/1 completed');
  // Whom the funnel counts is said beside it; the one version played is the one mounted.
  await expect(page.getByTestId('funnel-counts')).toContainText('The results page counts every session not excluded');
  await expect(page.getByTestId('version-head')).toHaveAttribute('data-mounted', 'true');
  await expect(page.getByTestId('version-head')).toContainText('mounted now · first played');
  for (const size of EVERY_SIZE) {
    await setWindowSize(page, size);
    await expectAccessible(page, `campaign view at ${size.width}x${size.height}`);
    await page.getByRole('heading', { name: new RegExp(`^${game} game`) }).scrollIntoViewIfNeeded();
    await picture(page, `campaign-funnel-${size.width}`);
  }
});

test('the study list marks a study with pools, and its campaign view is one click away', async ({ page, request }) => {
  const stamp = Date.now().toString(36);
  const id = `list-pool-${stamp}`;
  const created = await request.post(`/api/admin/studies/${id}`, {
    headers: ADMIN,
    data: {
      definition: {
        title: `Listed campaign ${stamp}`,
        consent: 'You agree.',
        completion: { code: 'LIST' },
        campaign: { id: `list-${stamp}` },
        items: [
          {
            kind: 'pool',
            id: 'pool',
            draw: 1,
            target: { solves: 2 },
            candidates: [
              { kind: 'game', id: 'push', game: 'push' },
              { kind: 'game', id: 'glow', game: 'glow' },
            ],
          },
        ],
      },
    },
  });
  expect(created.status(), await created.text()).toBe(201);
  await page.goto(`/login#token=${process.env.E2E_ADMIN_TOKEN}`);
  // The login page keeps the token once its script has run: wait for it before leaving.
  await expect(page.getByRole('heading', { name: 'Studies' })).toBeVisible();
  await page.goto('/studies');
  const entry = page
    .getByRole('list', { name: 'Studies' })
    .getByRole('listitem')
    .filter({ hasText: `Listed campaign ${stamp}` });
  await expect(entry.getByTestId('campaign-badge')).toHaveText(`Campaign list-${stamp} · 1 pool`);
  for (const size of EVERY_SIZE) {
    await setWindowSize(page, size);
    await expect(entry.getByTestId('campaign-badge')).toBeVisible();
    await expectAccessible(page, `study list at ${size.width}x${size.height}`);
    await entry.scrollIntoViewIfNeeded();
    await picture(page, `study-list-${size.width}`);
  }
  await page.getByRole('link', { name: `Campaign of ${id}` }).click();
  await expect(page.getByRole('table', { name: 'Candidates' })).toBeVisible();
});
