/**
 * A lab's team in the browser: the owner adds a designer and a researcher, each signs in with
 * their one-time link and sees who they are on every page; the researcher, a member of the
 * sample study, opens its results and exports it; the designer playtests a game, issues an agent
 * key and is refused the study's participants; the audit trail names each; a person disabled while their page is open is refused on its next request.
 */
import { readFile } from 'node:fs/promises';
import { expect, test } from './studio-test';
import { ADMIN } from './study-helpers';
import { expectAccessible } from './axe';
import { addPerson, signInWithLink } from './people-helpers';

test('the owner adds a designer and a researcher; each does only what their role allows, by name', async ({
  browser,
  request,
}) => {
  const stamp = Date.now().toString(36);
  const designerEmail = `dee-${stamp}@lab.org`;
  const researcherEmail = `rae-${stamp}@lab.org`;
  // The owner adds the designer on the People page, which shows her sign-in link once.
  const owner = await (await browser.newContext()).newPage();
  await owner.goto(`/login#token=${process.env.E2E_ADMIN_TOKEN}`);
  await expect(owner).toHaveURL(/\/studies$/);
  await owner.getByRole('link', { name: 'People' }).click();
  await owner.getByLabel('Email').fill(designerEmail);
  await owner.getByLabel('Name').fill('Dee Signer');
  await owner.getByLabel('Role').selectOption('designer');
  await owner.getByRole('button', { name: 'Add person' }).click();
  const shown = (await owner.getByTestId('signin-link').locator('code').textContent()) ?? '';
  const designerLink = new URL(shown).pathname + new URL(shown).hash;
  await expect(owner.getByRole('table', { name: "The lab's people" })).toContainText(designerEmail);
  for (const width of [1280, 768, 390]) {
    await owner.setViewportSize({ width, height: 800 });
    await expectAccessible(owner, `people at ${width}`);
  }
  await owner.context().close();
  const researcherLink = await addPerson(request, researcherEmail, 'researcher', 'Rae Search');
  const member = await request.put(`/api/admin/studies/sample/members/${researcherEmail}`, {
    headers: ADMIN,
    data: { role: 'researcher' },
  });
  expect(member.status(), await member.text()).toBe(200);

  // The researcher signs in, sees the study, opens its results and downloads its attempts there.
  const rae = await (await browser.newContext()).newPage();
  const raeCsrf = await signInWithLink(rae, researcherLink, 'Rae Search', 'researcher');
  await expect(rae.getByRole('list', { name: 'Studies' })).toContainText(/sample/i);
  await rae.goto('/studies/sample');
  await rae.getByRole('tab', { name: 'Exports' }).click();
  const downloading = rae.waitForEvent('download');
  await rae.getByRole('button', { name: 'Download Attempts (CSV)' }).click();
  expect(await readFile((await (await downloading).path())!, 'utf8')).toMatch(/^study_id,study_version,session_id,/);
  const exported = await rae.request.post('/api/admin/studies/sample/exports', {
    headers: { 'X-CSRF-Token': raeCsrf },
    data: { format: 'csv' },
  });
  expect(exported.status(), await exported.text()).toBe(201);
  const file = await rae.request.get(((await exported.json()) as { url: string }).url);
  expect(file.status()).toBe(200);
  // Without the CSRF token the same write with the cookie is refused.
  expect((await rae.request.post('/api/admin/studies/sample/exports', { data: { format: 'csv' } })).status()).toBe(403);

  // The designer signs in, sees no study, and is refused the study's participants.
  const dee = await (await browser.newContext()).newPage();
  await signInWithLink(dee, designerLink, 'Dee Signer', 'designer');
  await expect(dee.getByRole('list', { name: 'Studies' })).not.toContainText(/sample/i);
  expect((await dee.request.get('/api/admin/sessions?study=sample')).status()).toBe(403);
  expect((await dee.request.get('/api/admin/studies/sample/results')).status()).toBe(403);
  expect((await dee.request.get('/api/admin/arc3/games')).status()).toBe(200);
  // She playtests a built-in game, and issues an agent key for it.
  await dee.goto('/games/push/playtest');
  await expect(dee.getByTestId('game-canvas')).toHaveAttribute('data-state', 'NOT_FINISHED');
  await dee.keyboard.press('ArrowDown');
  await expect(dee.getByTestId('game-actions')).toHaveText('1');
  const deeCsrf = ((await (await dee.request.get('/api/me')).json()) as { csrf: string }).csrf;
  const key = await dee.request.post('/api/admin/agent-keys', {
    headers: { 'X-CSRF-Token': deeCsrf },
    data: { name: 'push agent' },
  });
  expect(key.status(), await key.text()).toBeLessThan(300);
  // The sign-in link worked once.
  await dee.context().clearCookies();
  await dee.goto(designerLink);
  await expect(dee.getByRole('alert')).toContainText(/used already/);

  // The audit trail names each.
  const audit = (await (await request.get('/api/admin/audit', { headers: ADMIN })).json()) as {
    entries: { actor: string; action: string }[];
  };
  const by = (actor: string) => audit.entries.filter((e) => e.actor === actor).map((e) => e.action);
  expect(by(researcherEmail)).toEqual(expect.arrayContaining(['signin']));
  expect(by(designerEmail)).toEqual(expect.arrayContaining(['signin', 'POST /admin/agent-keys']));
  const study = (await (await request.get('/api/admin/studies/sample/audit', { headers: ADMIN })).json()) as {
    events: { actor: string; action: string }[];
  };
  expect(study.events.filter((e) => e.action === 'export.create').map((e) => e.actor)).toEqual([
    researcherEmail,
    researcherEmail,
  ]);

  // Disabled while her page is open: its next request is refused, and the studio asks her to sign in.
  const off = await request.patch(`/api/admin/people/${researcherEmail}`, { headers: ADMIN, data: { disabled: true } });
  expect(off.status(), await off.text()).toBe(200);
  expect((await rae.request.get('/api/admin/studies')).status()).toBe(401);
  await rae.reload();
  await expect(rae.getByRole('link', { name: 'Sign in' }).first()).toBeVisible();
  await rae.context().close();
  await dee.context().close();
});

test('the sign-in page is reachable from the home page and accessible at 1280, 768 and 390', async ({ page }) => {
  await page.goto('/');
  await page.getByRole('link', { name: 'Sign in' }).click();
  await expect(page.getByRole('heading', { name: 'Sign in' })).toBeVisible();
  for (const width of [1280, 768, 390]) {
    await page.setViewportSize({ width, height: 800 });
    await expectAccessible(page, `sign-in at ${width}`);
  }
  await page.getByLabel('Email').fill('nobody@lab.org');
  await page.getByLabel('Password').fill('not the password');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByRole('alert')).toContainText(/wrong/);
});
