/**
 * A study on Prolific ends on Prolific's completion page: the code stays on screen for the
 * study's `completion.redirectAfterSeconds`, then the page goes to
 * `https://app.prolific.com/submissions/complete?cc=<code>` by itself. Prolific itself is never
 * reached: the browser's requests to it are answered by the test. Time is moved with `page.clock`.
 * Then a researcher pays bonuses from the campaign page, on a server pointed at the Prolific
 * stand-in (`src/prolificStandin`), pressing "Pay bonuses" twice: each participant is paid once;
 * and a participant who began from the Prolific link returns their submission on the stand-in:
 * "Check Prolific" ends their session, frees their candidate, and the campaign page and the
 * results show the return.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type Standin, startStandin } from '../src/prolificStandin/standin';
import { expect, test } from './studio-test';
import { ownPort, seedDataDir } from './helpers';
import { ADMIN, sampleTask } from './study-helpers';

test('the end of a study on Prolific shows the code, then sends the participant to Prolific with it after the delay', async ({
  page,
  request,
}) => {
  const definition = {
    title: 'On Prolific',
    consent: 'You agree.',
    instructions: 'Read the page.',
    items: [{ kind: 'page', id: 'only', markdown: 'Press continue.' }],
    completion: { code: 'PRO-7Q2', redirectAfterSeconds: 120 },
    prolific: { studyId: '65aa00bb11cc22dd33ee44ff' },
  };
  const saved = await request.put('/api/admin/studies/on-prolific', { headers: ADMIN, data: { definition } });
  expect(saved.status()).toBe(201);
  // A delay the study cannot have is refused with what to change.
  const refused = await request.put('/api/admin/studies/on-prolific-bad', {
    headers: ADMIN,
    data: { definition: { ...definition, completion: { code: 'X', redirectAfterSeconds: 3600 } } },
  });
  expect(refused.status()).toBe(400);
  expect(await refused.text()).toContain('redirectAfterSeconds');

  const reached: string[] = [];
  await page.route('https://app.prolific.com/**', (route) => {
    reached.push(route.request().url());
    return route.fulfill({ contentType: 'text/html', body: '<title>Prolific</title><h1>Submission complete</h1>' });
  });
  await page.clock.install();
  await page.goto(
    '/s/on-prolific?PROLIFIC_PID=5f00aa11bb22cc33dd44ee55&STUDY_ID=65aa00bb11cc22dd33ee44ff&SESSION_ID=s1',
  );
  await page.getByRole('button', { name: 'I agree, start' }).click();
  await page.getByRole('button', { name: 'Begin' }).click();
  await page.getByRole('button', { name: 'Continue' }).click();

  await expect(page.getByTestId('completion-code')).toHaveText('PRO-7Q2');
  const note = page.getByTestId('redirect-note');
  await expect(note).toContainText('in 120 s');
  await expect(note).toHaveAttribute('data-redirect-url', 'https://app.prolific.com/submissions/complete?cc=PRO-7Q2');
  // Before the delay, the page stays with its code on screen.
  await page.clock.runFor(100_000);
  await expect(page.getByTestId('completion-code')).toBeVisible();
  expect(reached).toEqual([]);

  await page.clock.runFor(21_000);
  await page.waitForURL('https://app.prolific.com/submissions/complete?cc=PRO-7Q2');
  await expect(page.getByRole('heading', { name: 'Submission complete' })).toBeVisible();
  expect(reached).toEqual(['https://app.prolific.com/submissions/complete?cc=PRO-7Q2']);
});

test.describe('paying bonuses from the campaign page', () => {
  let server: ChildProcess | null = null;
  let standin: Standin | null = null;
  let base = '';
  let tmp = '';

  test.beforeAll(async () => {
    // A server start takes minutes on a busy machine.
    test.setTimeout(360_000);
    standin = await startStandin({ token: 'e2e-prolific-token', rateLimit: 100_000 });
    tmp = seedDataDir(mkdtempSync(path.join(os.tmpdir(), 'arc-studio-prolific-')));
    const port = ownPort(5);
    base = `http://127.0.0.1:${port}`;
    server = spawn(
      process.execPath,
      ['bin/arc-studio.mjs', 'serve', '--port', String(port), '--host', '127.0.0.1', '--data-dir', tmp],
      {
        env: {
          ...process.env,
          ARC_STUDIO_ADMIN_TOKEN: process.env.E2E_ADMIN_TOKEN,
          ARC_STUDIO_PROLIFIC_API_URL: standin.url,
          ARC_STUDIO_SESSIONS_PER_MINUTE_PER_CLIENT: '100000',
        },
        stdio: 'ignore',
      },
    );
    await expect
      .poll(async () => (await fetch(`${base}/api/health`).catch(() => null))?.status ?? 0, {
        timeout: 300_000,
        message: 'the server did not start',
      })
      .toBe(200);
  });
  /** A request to the server on the stand-in, with `token` as the bearer when given. */
  const api = async (method: string, p: string, body?: unknown, token: string | null = null) => {
    const r = await fetch(`${base}/api${p}`, {
      method,
      headers: { 'Content-Type': 'application/json', ...(token ? { Authorization: `Bearer ${token}` } : {}) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: r.status, body: await r.json() };
  };
  test.afterAll(async () => {
    server?.kill('SIGKILL');
    await standin?.close();
    if (tmp) rmSync(tmp, { recursive: true, force: true });
  });

  test('the researcher enters the Prolific token, presses Pay bonuses twice, and each participant is paid once', async ({
    page,
  }) => {
    const prolificStudy = '66bb00cc11dd22ee33ff4400';
    const definition = {
      title: 'Paid from the studio',
      consent: 'You agree.',
      completion: { code: 'PAID-OK' },
      prolific: { studyId: prolificStudy },
      payment: { currency: 'GBP', fee: 4, bonus: { perSolve: 1.25 } },
      items: [
        {
          kind: 'pool',
          id: 'grid',
          draw: 1,
          fill: 'fast',
          target: { solves: 100 },
          candidates: [{ kind: 'task', id: 'blocks', collection: 'samples', task: 'downscale-blocks' }],
        },
      ],
    };
    expect((await api('PUT', '/admin/studies/paid-e2e', { definition }, process.env.E2E_ADMIN_TOKEN!)).status).toBe(
      201,
    );
    const task = sampleTask('downscale-blocks');
    const pids = ['5e00aa11bb22cc33dd44ee01', '5e00aa11bb22cc33dd44ee02', '5e00aa11bb22cc33dd44ee03'];
    for (const pid of pids) {
      await fetch(`${standin!.url}/__standin/studies/${prolificStudy}/submissions`, {
        method: 'POST',
        body: JSON.stringify({ participant_id: pid }),
      });
      const s = (await api('POST', '/studies/paid-e2e/sessions', { params: { PROLIFIC_PID: pid } })).body as {
        sessionId: string;
        token: string;
      };
      const at = (p: string, body: unknown) => api('POST', `/sessions/${s.sessionId}${p}`, body, s.token);
      await at('/events', { events: [{ seq: 0, t: 10, kind: 'item.start', data: { item: 'blocks', kind: 'task' } }] });
      for (const t of task.test.keys())
        expect(
          (await at('/submissions', { key: `k${t}`, item: 'blocks', testIndex: t, grid: task.test[t].output })).body
            .verdict,
        ).toBe('correct');
      await at('/events', { events: [{ seq: 1, t: 20, kind: 'item.end', data: { item: 'blocks' } }] });
      expect((await at('/finish', { lastSeq: 1 })).status).toBe(200);
    }

    await page.goto(`${base}/login#token=${process.env.E2E_ADMIN_TOKEN}`);
    await expect(page.getByRole('heading', { name: 'Studies' })).toBeVisible();
    await page.goto(`${base}/studies/paid-e2e/campaign`);
    const panel = page.getByTestId('prolific-panel');
    await expect(panel.getByTestId('prolific-token-state')).toHaveText('No Prolific token is set.');
    await panel.getByLabel('Prolific token').fill('e2e-prolific-token');
    await panel.getByRole('button', { name: 'Save token' }).click();
    await expect(panel.getByTestId('prolific-token-state')).toHaveText('A Prolific token is set (in the studio).');
    // The field is emptied and the token never comes back to the page.
    await expect(panel.getByLabel('Prolific token')).toHaveValue('');
    await expect(page.locator('body')).not.toContainText('e2e-prolific-token');

    await expect(panel.getByTestId('ledger-summary')).toContainText('0 of 3 participants paid');
    await panel.getByRole('button', { name: 'Pay bonuses' }).click();
    await expect(panel.getByTestId('prolific-message')).toHaveText('Paid 3 participants (3.75).');
    await expect(panel.getByTestId('ledger-summary')).toContainText('3 of 3 participants paid');
    await panel.getByRole('button', { name: 'Pay bonuses' }).click();
    await expect(panel.getByTestId('prolific-message')).toHaveText('Paid 0 participants (0.00).');
    const paid = await (await fetch(`${standin!.url}/__standin/paid`)).json();
    expect(paid).toEqual(Object.fromEntries(pids.map((p) => [p, 1.25])));
  });

  test('a participant who began from the Prolific link returns their submission: their candidate is freed and the researcher sees why', async ({
    page,
    browser,
  }) => {
    const admin = process.env.E2E_ADMIN_TOKEN!;
    const prolificStudy = '77cc00dd11ee22ff33aa4400';
    const pid = '5e00aa11bb22cc33dd44ee77';
    const definition = {
      title: 'Returned on Prolific',
      consent: 'You agree.',
      completion: { code: 'RET-OK' },
      prolific: { studyId: prolificStudy },
      items: [
        {
          kind: 'pool',
          id: 'grid',
          draw: 1,
          target: { solves: 1 },
          candidates: [
            { kind: 'task', id: 'blocks', collection: 'samples', task: 'downscale-blocks' },
            { kind: 'task', id: 'wall', collection: 'samples', task: 'mirror-across-wall' },
          ],
        },
      ],
    };
    expect((await api('PUT', '/admin/studies/return-e2e', { definition }, admin)).status).toBe(201);
    expect((await api('PUT', '/admin/prolific/token', { value: 'e2e-prolific-token' }, admin)).status).toBe(200);
    const submission = (await (
      await fetch(`${standin!.url}/__standin/studies/${prolificStudy}/submissions`, {
        method: 'POST',
        body: JSON.stringify({ participant_id: pid }),
      })
    ).json()) as { id: string };

    // The participant comes from Prolific's link and reaches their candidate.
    const link = `${base}/s/return-e2e?PROLIFIC_PID=${pid}&STUDY_ID=${prolificStudy}&SESSION_ID=${submission.id}`;
    const participant = await browser.newPage();
    await participant.goto(link);
    await participant.getByRole('button', { name: 'I agree, start' }).click();
    await participant.getByRole('button', { name: 'Begin' }).click();
    await expect(participant.getByRole('button', { name: 'Submit' }).first()).toBeVisible();

    await page.goto(`${base}/login#token=${admin}`);
    await expect(page.getByRole('heading', { name: 'Studies' })).toBeVisible();
    await page.goto(`${base}/studies/return-e2e/campaign`);
    const stats = page.getByTestId('campaign-stats');
    await expect(page.getByRole('list', { name: 'Participants playing now' })).toContainText(pid);
    await expect(stats).toContainText(/Returned \/ timed out\s*0 \/ 0/);

    const inProgress = async () =>
      (
        (await api('GET', '/admin/studies/return-e2e/campaign', undefined, admin)).body as {
          candidates: { id: string; inProgress: number }[];
        }
      ).candidates.map((c) => c.inProgress);
    expect((await inProgress()).sort()).toEqual([0, 1]);

    // On Prolific the participant returns the submission; the researcher asks Prolific.
    const changed = await fetch(`${standin!.url}/__standin/submissions/${submission.id}/status`, {
      method: 'POST',
      body: JSON.stringify({ status: 'RETURNED' }),
    });
    expect(changed.status).toBe(200);
    const panel = page.getByTestId('prolific-panel');
    await panel.getByRole('button', { name: 'Check Prolific' }).click();
    await expect(panel.getByTestId('prolific-message')).toHaveText(
      'Prolific: 1 returned, 0 timed out; 1 session ended now.',
    );
    await page.reload();
    await expect(stats).toContainText(/Returned \/ timed out\s*1 \/ 0/);
    await expect(page.getByText('Nobody is playing right now.')).toBeVisible();

    // The claim is freed (no candidate in progress), and the results say why the session ended.
    expect(await inProgress()).toEqual([0, 0]);
    const results = (await api('GET', '/admin/studies/return-e2e/results', undefined, admin)).body as {
      participants: { params: Record<string, string>; flags: string[] }[];
    };
    expect(results.participants.map((p) => [p.params.PROLIFIC_PID, p.flags.includes('prolific_returned')])).toEqual([
      [pid, true],
    ]);

    // Coming back from the same link, the participant is told plainly why they cannot start again.
    const again = await browser.newPage();
    await again.goto(link);
    await again.getByRole('button', { name: 'I agree, start' }).click();
    await expect(again.getByText(/Prolific reports that you returned this study/)).toBeVisible();
    await participant.close();
    await again.close();
  });
});
