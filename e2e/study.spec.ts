import { expect, test, type Response } from './studio-test';
import { ADMIN, completeCurrentItem, expectAllStored, sampleStudy, sampleTask } from './study-helpers';
import { ENGINE_VERSION, gameVersion } from '../src/core/game';
import { getGame } from '../src/games';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ASSETS = path.resolve(fileURLToPath(new URL('../dist/assets', import.meta.url)));

/** Fails when any object in a response carries a test input's answer. */
function answersIn(value: unknown, path = '$'): string[] {
  if (Array.isArray(value)) return value.flatMap((v, i) => answersIn(v, `${path}[${i}]`));
  if (value && typeof value === 'object') {
    const o = value as Record<string, unknown>;
    const found =
      Array.isArray(o.test) && o.test.some((t) => t && typeof t === 'object' && 'output' in t) ? [`${path}.test`] : [];
    return [...found, ...Object.entries(o).flatMap(([k, v]) => answersIn(v, `${path}.${k}`))];
  }
  return [];
}

test('a participant goes from a Prolific link through the whole sample study; every event is stored once, in order, and no answer reaches the browser', async ({
  page,
  request,
}) => {
  const study = sampleStudy();
  const bodies: { url: string; body: string }[] = [];
  const scripts: string[] = [];
  page.on('request', (r) => {
    if (r.resourceType() === 'script') scripts.push(new URL(r.url()).pathname);
  });
  page.on('response', (r: Response) => {
    if (r.url().includes('/api/'))
      void r.text().then(
        (body) => bodies.push({ url: r.url(), body }),
        () => {},
      );
  });

  await page.goto('/s/sample?PROLIFIC_PID=e2e-participant-1&STUDY_ID=prolific-study&SESSION_ID=prolific-session');
  await expect(page.getByRole('heading', { name: 'Consent' })).toBeVisible();
  await page.getByRole('button', { name: 'I agree, start' }).click();
  await page.getByRole('button', { name: 'Begin' }).click();

  const done: string[] = [];
  for (let i = 0; i < study.items.length; i++) done.push(await completeCurrentItem(page, study));
  expect(new Set(done)).toEqual(new Set(study.items.map((i) => i.id)));

  await expect(page.getByTestId('completion-code')).toHaveText(study.completion.code);
  const { id, events } = await expectAllStored(request, page);
  expect(events[0].kind).toBe('session.start');
  expect(events.filter((e) => e.kind === 'submit').every((e) => e.data.verdict === 'correct')).toBe(true);

  const session = await (await request.get(`/api/admin/sessions/${id}`, { headers: ADMIN })).json();
  expect(session.session.state).toBe('finished');
  expect(session.session.params).toMatchObject({
    PROLIFIC_PID: 'e2e-participant-1',
    STUDY_ID: 'prolific-study',
    SESSION_ID: 'prolific-session',
  });
  expect(session.session.flags.filter((f: string) => f.startsWith('game_log_'))).toEqual([]);
  // The game's opening names the game's version and the engine's, the ones the server verified on.
  const open = events.find((e) => e.kind === 'game.open');
  expect(open?.data).toMatchObject({ version: gameVersion(getGame(String(open?.data.game))), engine: ENGINE_VERSION });

  // No response the participant's pages received holds a test output.
  expect(bodies.length).toBeGreaterThan(5);
  for (const { url, body } of bodies) {
    let json: unknown = null;
    try {
      json = JSON.parse(body);
    } catch {
      continue;
    }
    expect(answersIn(json), url).toEqual([]);
  }
  const answers = study.items.flatMap((i) => (i.kind === 'task' ? sampleTask(i.task).test.map((t) => t.output!) : []));
  const trainText = study.items.flatMap((i) =>
    i.kind === 'task' ? sampleTask(i.task).train.map((p) => JSON.stringify(p.output)) : [],
  );
  for (const a of answers.filter((g) => g.length * g[0].length >= 4 && !trainText.includes(JSON.stringify(g)))) {
    const text = JSON.stringify(a);
    for (const { url, body } of bodies) expect(body.includes(text), url).toBe(false);
  }

  // The whole study ran on the app's first scripts: none of the studio's pages, which have
  // scripts of their own, was downloaded, nor the editor, the charts or the graph library.
  const studioPages = readdirSync(ASSETS).filter((f) =>
    /^(StudiesPage|StudyResultsPage|StudyEditorPage|ReplayPage|CampaignPage|ScorePage|TaskBrowserPage|PlaytestPage|widgets|cytoscape\.esm)-.*\.js$/.test(
      f,
    ),
  );
  expect(studioPages).toHaveLength(10);
  expect(scripts.length).toBeGreaterThan(0);
  expect(scripts.filter((s) => studioPages.some((f) => s.endsWith(`/${f}`)))).toEqual([]);
});
