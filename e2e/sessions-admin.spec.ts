/**
 * A researcher curates a study's data in the studio: excludes a session (the results change and
 * the session stays listed, marked), includes it again, deletes a session behind a dialog where
 * the session id is typed, reads the audit log, and deletes the study from its editor. A study
 * defined by a file in data/studies is refused with the reason.
 */
import { expect, test, type APIRequestContext, type Page } from './studio-test';
import { ADMIN, sampleTask } from './study-helpers';
import { picture } from './helpers';

const TASK = 'mirror-across-wall';

/**
 * A participant's session over the participant API, as the study page sends it: the item's
 * start, one painted cell and a judged submission (right or wrong).
 */
async function takePart(request: APIRequestContext, studyId: string, pid: string, right: boolean): Promise<string> {
  const created = await request.post(`/api/studies/${studyId}/sessions`, { data: { params: { PROLIFIC_PID: pid } } });
  expect(created.status(), await created.text()).toBe(201);
  const { sessionId, token } = (await created.json()) as { sessionId: string; token: string };
  const auth = { Authorization: `Bearer ${token}` };
  const events = [
    { seq: 0, t: 0, kind: 'item.start', data: { item: 'mirror', kind: 'task' } },
    { seq: 1, t: 800, kind: 'paint', data: { row: 0, col: 0, color: 6, stroke: 1 } },
  ];
  expect((await request.post(`/api/sessions/${sessionId}/events`, { headers: auth, data: { events } })).status()).toBe(
    200,
  );
  const answer = sampleTask(TASK).test[0].output!;
  const grid = right ? answer : answer.map((row) => row.map(() => 0));
  const judged = await request.post(`/api/sessions/${sessionId}/submissions`, {
    headers: auth,
    data: { key: 'k1', item: 'mirror', testIndex: 0, grid },
  });
  expect(judged.status(), await judged.text()).toBe(200);
  return sessionId;
}

/** The grid tasks tab counts `count` participants who attempted the task (waited for, as results refresh). */
async function expectAttempted(page: Page, count: string): Promise<void> {
  await page.getByRole('tab', { name: 'Grid tasks' }).click();
  const row = page.getByRole('table', { name: 'Grid tasks' }).getByRole('row', { name: /mirror/ });
  await expect(row.getByRole('cell').nth(1)).toHaveText(count);
  await page.getByRole('tab', { name: /^Participants/ }).click();
}

test('a researcher excludes a session and includes it again, deletes a session, then deletes the study', async ({
  page,
  request,
}) => {
  const tag = Date.now().toString(36);
  const studyId = `curate-${tag}`;
  const definition = {
    title: `Curation ${tag}`,
    consent: 'You agree to take part.',
    completion: { code: 'CUR-1' },
    items: [{ kind: 'task', id: 'mirror', collection: 'samples', task: TASK }],
  };
  expect((await request.post(`/api/admin/studies/${studyId}`, { headers: ADMIN, data: { definition } })).status()).toBe(
    201,
  );
  const [ann, ben, cat] = [`ann-${tag}`, `ben-${tag}`, `cat-${tag}`];
  await takePart(request, studyId, ann, true);
  await takePart(request, studyId, ben, true);
  const catSession = await takePart(request, studyId, cat, false);

  await page.goto(`/login#token=${process.env.E2E_ADMIN_TOKEN}`);
  await expect(page.getByRole('heading', { name: 'Studies' })).toBeVisible();
  await page.goto(`/studies/${studyId}`);
  const participants = page.getByRole('table', { name: 'Participants' });
  await expect(page.getByRole('tab', { name: 'Participants (3)' })).toBeVisible();
  await expectAttempted(page, '3');

  // Exclude Ben: the dialog opens on the reason, Escape closes it and gives the focus back.
  const exclude = page.getByRole('button', { name: `Exclude session ${ben}` });
  await exclude.click();
  const dialog = page.getByRole('dialog', { name: `Exclude session ${ben}?` });
  await expect(dialog).toBeVisible();
  await expect(dialog.getByRole('textbox', { name: /Reason/ })).toBeFocused();
  await page.keyboard.press('Escape');
  await expect(dialog).toHaveCount(0);
  await expect(exclude).toBeFocused();
  // Tab stays in the dialog: from the last button it wraps to the reason.
  await page.keyboard.press('Enter');
  await expect(dialog).toBeVisible();
  await page.keyboard.press('Tab');
  await page.keyboard.press('Tab');
  await expect(dialog.getByRole('button', { name: 'Exclude session' })).toBeFocused();
  await page.keyboard.press('Tab');
  await expect(dialog.getByRole('textbox', { name: /Reason/ })).toBeFocused();
  await page.keyboard.type('my own test run');
  await picture(page, 'exclude-dialog');
  await page.keyboard.press('Enter');
  await expect(dialog).toHaveCount(0);

  // The results change; Ben stays listed, marked with the reason.
  await expect(page.getByRole('tab', { name: 'Participants (2)' })).toBeVisible();
  await expect(participants.getByRole('row', { name: new RegExp(ben) })).toContainText('excluded: my own test run');
  await expect(page.getByText('1 excluded session is listed below')).toBeVisible();
  await expectAttempted(page, '2');
  await picture(page, 'participants-excluded');
  // His replay says so too.
  await participants
    .getByRole('row', { name: new RegExp(ben) })
    .getByRole('link', { name: 'Replay' })
    .click();
  await expect(page.getByText('Excluded from the results: my own test run')).toBeVisible();
  await page.goBack();
  await expect(page.getByRole('tab', { name: 'Participants (2)' })).toBeVisible();

  // Include him again.
  await page.getByRole('button', { name: `Include session ${ben} again` }).click();
  const include = page.getByRole('dialog', { name: `Include session ${ben} again?` });
  await expect(include).toContainText('It was excluded because: “my own test run”');
  await include.getByRole('button', { name: 'Include again' }).click();
  await expect(page.getByRole('tab', { name: 'Participants (3)' })).toBeVisible();
  await expect(participants.getByRole('row', { name: new RegExp(ben) })).not.toContainText('excluded');
  await expectAttempted(page, '3');

  // Delete Cat's session: the button works only once the session id is typed.
  await page.getByRole('button', { name: `Delete session ${cat}` }).click();
  const del = page.getByRole('dialog', { name: `Delete session ${cat}?` });
  await expect(del).toContainText('It cannot be undone.');
  const confirmDelete = del.getByRole('button', { name: 'Delete session' });
  await expect(del.getByRole('textbox', { name: /to confirm/ })).toBeFocused();
  await expect(confirmDelete).toBeDisabled();
  await page.keyboard.type(catSession.slice(0, 8));
  await expect(confirmDelete).toBeDisabled();
  await page.keyboard.type(catSession.slice(8));
  await expect(confirmDelete).toBeEnabled();
  await page.setViewportSize({ width: 768, height: 1024 });
  await expect(confirmDelete).toBeInViewport();
  await picture(page, 'delete-session-768');
  await page.setViewportSize({ width: 1280, height: 720 });
  await confirmDelete.click();
  await expect(del).toHaveCount(0);
  await expect(page.getByRole('tab', { name: 'Participants (2)' })).toBeVisible();
  await expect(participants.getByRole('row', { name: new RegExp(cat) })).toHaveCount(0);
  const gone = await request.get(`/api/admin/sessions/${catSession}`, { headers: ADMIN });
  expect(gone.status()).toBe(404);

  // The audit log: newest first, who, what and why.
  await page.getByRole('tab', { name: 'Audit log' }).click();
  const log = page.getByRole('table', { name: 'Audit log' });
  // The header, the three curation actions, and the study's creation (every write is in the trail).
  await expect(log.getByRole('row')).toHaveCount(5);
  await expect(log.getByRole('row').nth(4)).toContainText('Created study');
  await expect(log.getByRole('row').nth(1)).toContainText('Deleted session');
  await expect(log.getByRole('row').nth(1)).toContainText(catSession);
  await expect(log.getByRole('row').nth(2)).toContainText('Included session again');
  await expect(log.getByRole('row').nth(3)).toContainText('Excluded session');
  await expect(log.getByRole('row').nth(3)).toContainText('my own test run');
  await expect(log.getByRole('row').nth(3)).toContainText('researcher');
  await picture(page, 'audit-log');

  // A study defined by a file is refused, with what to do.
  await page.goto('/studies/sample/edit');
  await page.getByRole('button', { name: 'Delete study' }).click();
  const sample = page.getByRole('dialog', { name: 'Delete study sample?' });
  await page.keyboard.type('sample');
  await page.keyboard.press('Enter');
  await expect(sample.getByRole('alert')).toContainText(
    'Move that file out of the studies folder and restart the server',
  );
  await page.keyboard.press('Escape');
  await expect(sample).toHaveCount(0);
  expect((await request.get('/api/admin/studies/sample', { headers: ADMIN })).status()).toBe(200);

  // Delete the study from its editor: its id typed, then it is gone from the list.
  await page.goto(`/studies/${studyId}/edit`);
  await page.getByRole('button', { name: 'Delete study' }).click();
  const study = page.getByRole('dialog', { name: `Delete study ${studyId}?` });
  await expect(study).toContainText('all 2 sessions');
  await page.keyboard.type(studyId);
  await picture(page, 'delete-study');
  await study.getByRole('button', { name: 'Delete study' }).click();
  await expect(page.getByRole('heading', { name: 'Studies' })).toBeVisible();
  await expect(page.getByRole('link', { name: `Curation ${tag}` })).toHaveCount(0);
  expect((await request.get(`/api/admin/studies/${studyId}`, { headers: ADMIN })).status()).toBe(404);
  const audit = (await (await request.get(`/api/admin/studies/${studyId}/audit`, { headers: ADMIN })).json()) as {
    events: { action: string }[];
  };
  expect(audit.events.map((e) => e.action)).toEqual([
    'study.delete',
    'session.delete',
    'session.include',
    'session.exclude',
    'study.create',
  ]);
});
