/**
 * Pilots and deletion requests in the studio: a researcher starts a pilot, moves the study to
 * main in one action (pilot sessions leave the counts, the stage selector brings them back), then
 * finds one participant's sessions across two studies on the Data requests page, deletes them
 * with a reason behind a dialog where the id is typed, and reads the receipt.
 */
import { expect, test, type APIRequestContext, type Page } from './studio-test';
import { ADMIN, sampleTask } from './study-helpers';

const TASK = 'mirror-across-wall';

/** A participant's session over the participant API: the item's start, a painted cell and a right answer. */
async function takePart(request: APIRequestContext, studyId: string, pid: string): Promise<void> {
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
  const judged = await request.post(`/api/sessions/${sessionId}/submissions`, {
    headers: auth,
    data: { key: 'k1', item: 'mirror', testIndex: 0, grid: sampleTask(TASK).test[0].output! },
  });
  expect(judged.status(), await judged.text()).toBe(200);
}

async function newStudy(request: APIRequestContext, studyId: string, title: string): Promise<void> {
  const definition = {
    title,
    consent: 'You agree to take part.',
    completion: { code: 'STG-1' },
    items: [{ kind: 'task', id: 'mirror', collection: 'samples', task: TASK }],
  };
  const r = await request.post(`/api/admin/studies/${studyId}`, { headers: ADMIN, data: { definition } });
  expect(r.status(), await r.text()).toBe(201);
}

/** The participants tab's count of counted participants. */
const participantsTab = (page: Page, n: number) => page.getByRole('tab', { name: `Participants (${n})` });

test('a researcher pilots a study, moves it to main in one action, and counts the pilot only when asked', async ({
  page,
  request,
}) => {
  const tag = Date.now().toString(36);
  const studyId = `stages-${tag}`;
  await newStudy(request, studyId, `Stages ${tag}`);
  await page.goto(`/login#token=${process.env.E2E_ADMIN_TOKEN}`);
  await expect(page.getByRole('heading', { name: 'Studies' })).toBeVisible();
  await page.goto(`/studies/${studyId}`);
  await expect(page.getByTestId('current-stage')).toHaveText('main');

  await page.getByRole('button', { name: 'Start a pilot' }).click();
  await page.getByRole('dialog', { name: 'Start a pilot?' }).getByRole('button', { name: 'Start the pilot' }).click();
  await expect(page.getByTestId('current-stage')).toHaveText('pilot');
  await takePart(request, studyId, `pia-${tag}`);
  await takePart(request, studyId, `pip-${tag}`);

  await page.getByRole('button', { name: 'Move to main' }).click();
  const dialog = page.getByRole('dialog', { name: 'Move this study to main?' });
  await expect(dialog).toContainText('keep their stage');
  await dialog.getByRole('button', { name: 'Move to main' }).click();
  await expect(dialog).toBeHidden();
  await expect(page.getByTestId('current-stage')).toHaveText('main');
  await takePart(request, studyId, `mo-${tag}`);

  await page.getByRole('button', { name: 'Refresh' }).click();
  await expect(participantsTab(page, 1)).toBeVisible();
  const table = page.getByRole('table', { name: 'Participants' });
  await expect(table.getByRole('row', { name: new RegExp(`mo-${tag}`) })).toBeVisible();
  await expect(table.getByRole('row', { name: new RegExp(`pia-${tag}`) })).toHaveCount(0);

  const stage = page.getByRole('combobox', { name: 'Stage counted' });
  await expect(stage.getByRole('option', { name: 'Pilot (2)' })).toBeAttached();
  await stage.selectOption('pilot');
  await expect(participantsTab(page, 2)).toBeVisible();
  await stage.selectOption('all');
  await expect(participantsTab(page, 3)).toBeVisible();
  await expect(table.getByRole('row', { name: new RegExp(`pia-${tag}.*pilot`) })).toBeVisible();
  await expect(table.getByRole('columnheader', { name: /Stage/ })).toBeVisible();

  // The move is in the audit log, by person.
  await page.getByRole('tab', { name: 'Audit log' }).click();
  await expect(page.getByRole('tabpanel')).toContainText('Changed stage');
  await expect(page.getByRole('tabpanel')).toContainText('pilot to main');
});

test("a researcher deletes one participant's data across two studies and reads the receipt", async ({
  page,
  request,
}) => {
  const tag = Date.now().toString(36);
  const [first, second] = [`del-a-${tag}`, `del-b-${tag}`];
  await newStudy(request, first, `Deletion A ${tag}`);
  await newStudy(request, second, `Deletion B ${tag}`);
  const zed = `zed-${tag}`;
  await takePart(request, first, `ann-${tag}`);
  await takePart(request, first, zed);
  await takePart(request, second, zed);

  await page.goto(`/login#token=${process.env.E2E_ADMIN_TOKEN}`);
  await page.getByRole('link', { name: 'Data requests' }).click();
  await expect(page.getByRole('heading', { name: 'Data requests' })).toBeVisible();
  await page.getByRole('textbox', { name: 'Participant id' }).fill(zed);
  await page.getByRole('button', { name: 'Find' }).click();
  const found = page.getByRole('region', { name: 'Sessions found' });
  await expect(found.getByRole('status')).toHaveText('2 sessions in 2 studies.');
  await expect(found).toContainText(`Deletion A ${tag}`);
  await expect(found).toContainText(`Deletion B ${tag}`);

  await page.getByRole('textbox', { name: /Reason/ }).fill('The participant asked by email.');
  await page.getByRole('button', { name: 'Delete all of it' }).click();
  const dialog = page.getByRole('dialog', { name: "Delete this participant's data?" });
  const confirm = dialog.getByRole('button', { name: 'Delete permanently' });
  await expect(confirm).toBeDisabled();
  await dialog.getByRole('textbox').fill(zed);
  await confirm.click();

  const receipt = page.getByRole('region', { name: 'Deletion receipt' });
  await expect(receipt.getByTestId('receipt-total')).toContainText('2 sessions');
  await expect(receipt).toContainText('The participant asked by email.');
  await expect(receipt).not.toContainText(zed);
  const id = (await receipt.getByTestId('receipt-id').textContent())!;

  // Gone from the results; the other participant stays.
  await page.goto(`/studies/${first}`);
  await expect(participantsTab(page, 1)).toBeVisible();
  await expect(
    page.getByRole('table', { name: 'Participants' }).getByRole('row', { name: new RegExp(`ann-${tag}`) }),
  ).toBeVisible();

  // The receipt has a page of its own, listed among the earlier deletions.
  await page.goto('/data-requests');
  await page.getByRole('region', { name: 'Earlier deletions' }).getByRole('link').first().click();
  await expect(page.getByTestId('receipt-id')).toHaveText(id);
});
