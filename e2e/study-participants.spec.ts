/**
 * Two people in one browser: a study link naming another participant than the session this
 * browser holds starts a session of its own (after its own consent), and each person's actions
 * are logged under their own id; the first person's link goes on with their session.
 */
import { expect, test } from './studio-test';
import { ADMIN, serverEvents } from './study-helpers';

test('a second participant id in the same browser gets its own session; the first resumes theirs', async ({
  page,
  request,
}) => {
  const tag = Date.now().toString(36);
  const [ann, ben] = [`ann-${tag}`, `ben-${tag}`];

  await page.goto(`/s/sample?PROLIFIC_PID=${ann}`);
  await page.getByRole('button', { name: 'I agree, start' }).click();
  await page.getByRole('button', { name: 'Begin' }).click();
  await expect(page.getByRole('button', { name: 'Continue' })).toBeVisible();

  // Ben opens his own link in the same browser: his own consent, not Ann's session.
  await page.goto(`/s/sample?PROLIFIC_PID=${ben}`);
  await expect(page.getByRole('button', { name: 'I agree, start' })).toBeVisible();
  await page.getByRole('button', { name: 'I agree, start' }).click();
  await expect(page.getByRole('button', { name: 'Begin' })).toBeVisible();

  // Ann's link again: her session, where she left it (past the instructions), not a new consent.
  await page.goto(`/s/sample?PROLIFIC_PID=${ann}`);
  await expect(page.getByRole('button', { name: 'Continue' })).toBeVisible();
  await expect(page.getByRole('button', { name: 'I agree, start' })).toHaveCount(0);

  const res = await request.get('/api/admin/studies/sample/results', { headers: ADMIN });
  expect(res.status()).toBe(200);
  const participants = ((await res.json()) as { participants: { sessionId: string; params: Record<string, string> }[] })
    .participants;
  const annSessions = participants.filter((p) => p.params.PROLIFIC_PID === ann);
  const benSessions = participants.filter((p) => p.params.PROLIFIC_PID === ben);
  expect(annSessions).toHaveLength(1);
  expect(benSessions).toHaveLength(1);
  // Each session's log is its own person's: Ann's was resumed, Ben's only started.
  await expect
    .poll(
      async () =>
        (await serverEvents(request, annSessions[0].sessionId)).map((e) => e.kind).filter((k) => k === 'session.resume')
          .length,
    )
    .toBeGreaterThanOrEqual(1);
  const benEvents = await serverEvents(request, benSessions[0].sessionId);
  expect(benEvents.map((e) => e.kind)).not.toContain('session.resume');
  expect(benEvents.find((e) => e.kind === 'session.start')?.data.params).toMatchObject({ PROLIFIC_PID: ben });
});
