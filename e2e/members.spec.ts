/**
 * A study's members and a person's own API tokens in the studio: the lab's owner, signed in with
 * their link, adds a researcher to the sample study on its Members tab, makes them a viewer and
 * removes them; then makes a token on My tokens, sees it once, uses it from outside the browser
 * and revokes it, after which the server refuses it. Both pages are checked with axe at the
 * laptop, tablet and phone widths. A study's researcher manages its members too; a viewer member
 * is shown no Members, Audit log, Exports or Grading tab, nor is a researcher of the lab who is a
 * viewer of that study. A person
 * signed in on two browsers signs out everywhere from My tokens: both are signed out.
 */
import { expect, test, type Page } from './studio-test';
import { ADMIN } from './study-helpers';
import { expectAccessible } from './axe';
import { picture } from './helpers';
import { addPerson, signInWithLink } from './people-helpers';

const WIDTHS = [1280, 768, 390] as const;

async function checkAtEachWidth(page: Page, name: string): Promise<void> {
  for (const width of WIDTHS) {
    await page.setViewportSize({ width, height: 900 });
    await expectAccessible(page, `${name} at ${width}`);
    await picture(page, `${name}-${width}`, { fullPage: true });
  }
  await page.setViewportSize({ width: 1280, height: 900 });
}

test("the owner manages a study's members and their own tokens", async ({ page, request, baseURL }) => {
  const stamp = Date.now().toString(36);
  const ownerEmail = `olive-${stamp}@lab.org`;
  const raeEmail = `rae-${stamp}@lab.org`;
  await signInWithLink(page, await addPerson(request, ownerEmail, 'owner', 'Olive Owner'), 'Olive Owner', 'owner');
  await addPerson(request, raeEmail, 'researcher', 'Rae Search');
  const members = async () =>
    (
      (await (await request.get('/api/admin/studies/sample/members', { headers: ADMIN })).json()) as {
        members: { email: string; role: string }[];
      }
    ).members.filter((m) => m.email === raeEmail);

  // Members: add, change the role, remove after a confirmation.
  await page.goto('/studies/sample');
  await page.getByRole('tab', { name: 'Members' }).click();
  const panel = page.getByRole('tabpanel');
  await panel.getByLabel("Member's email").fill(raeEmail);
  await panel.getByLabel('Role on this study').selectOption('researcher');
  await panel.getByRole('button', { name: 'Add member' }).click();
  const table = panel.getByRole('table', { name: 'Members of this study' });
  await expect(table.getByRole('row', { name: new RegExp(raeEmail) })).toContainText('Rae Search');
  expect(await members()).toEqual([expect.objectContaining({ role: 'researcher' })]);
  await checkAtEachWidth(page, 'members');

  await table.getByLabel(`Role of ${raeEmail}`).selectOption('viewer');
  await expect.poll(async () => (await members())[0]?.role).toBe('viewer');
  await expect(table.getByLabel(`Role of ${raeEmail}`)).toHaveValue('viewer');

  // An unknown email is refused with the server's words, and nothing changes.
  await panel.getByLabel("Member's email").fill(`nobody-${stamp}@lab.org`);
  await panel.getByRole('button', { name: 'Add member' }).click();
  await expect(panel.getByRole('alert')).toContainText(`No one in the lab has the email nobody-${stamp}@lab.org`);

  await table.getByRole('button', { name: `Remove ${raeEmail}` }).click();
  const dialog = page.getByRole('dialog', { name: 'Remove Rae Search from this study?' });
  await expect(dialog).toBeVisible();
  await checkAtEachWidth(page, 'members-remove-dialog');
  await dialog.getByRole('button', { name: 'Remove member' }).click();
  await expect(dialog).toHaveCount(0);
  await expect(panel.getByText(raeEmail)).toHaveCount(0);
  expect(await members()).toEqual([]);

  // My tokens, from the header: a viewer's token, shown once, used from outside the browser, revoked.
  await page.getByTestId('signed-in').getByRole('link', { name: 'My tokens' }).click();
  await expect(page.getByRole('heading', { name: 'My tokens' })).toBeVisible();
  // On a phone the header's links are in its Account menu.
  await page.goto('/studies');
  await page.setViewportSize({ width: 390, height: 900 });
  const header = page.getByTestId('signed-in');
  await expect(header.getByRole('link', { name: 'My tokens' })).toBeHidden();
  await header.getByText('Account').click();
  await expect(header).toContainText('Olive Owner (owner)');
  await header.getByRole('link', { name: 'My tokens' }).click();
  await expect(page.getByRole('heading', { name: 'My tokens' })).toBeVisible();
  await expect(header.getByRole('link', { name: 'My tokens' })).toBeHidden();
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.getByLabel('Token name').fill('analysis script');
  await page.getByLabel('Token role').selectOption('viewer');
  await page.getByLabel('Days valid').fill('7');
  await page.getByRole('button', { name: 'Create token' }).click();
  const token = (await page.getByTestId('new-token').textContent()) ?? '';
  expect(token).toMatch(/^arcp_/);
  const row = page.getByRole('table', { name: 'My tokens' }).getByRole('row', { name: /analysis script/ });
  await expect(row).toContainText('viewer');
  await expect(row).toContainText('until');
  await checkAtEachWidth(page, 'tokens');

  const meWith = (t: string) => fetch(new URL('/api/me', baseURL), { headers: { Authorization: `Bearer ${t}` } });
  const me = await meWith(token);
  expect(me.status).toBe(200);
  expect(await me.json()).toMatchObject({ email: ownerEmail, role: 'viewer', via: 'token' });

  // Shown once: a new visit lists the token without it.
  await page.reload();
  await expect(row).toBeVisible();
  await expect(page.getByTestId('new-token')).toHaveCount(0);
  await expect(page.locator('body')).not.toContainText(token);

  await row.getByRole('button', { name: 'Revoke analysis script' }).click();
  const revoke = page.getByRole('dialog', { name: /^Revoke the token/ });
  await expect(revoke).toBeVisible();
  await checkAtEachWidth(page, 'tokens-revoke-dialog');
  await revoke.getByRole('button', { name: 'Revoke token' }).click();
  await expect(revoke).toHaveCount(0);
  await expect(row).toContainText('revoked');
  expect((await meWith(token)).status).toBe(401);
});

test("a study's researcher manages its members; a viewer member is shown none of the researchers' tabs", async ({
  browser,
  request,
}) => {
  const stamp = Date.now().toString(36);
  const raeEmail = `rae2-${stamp}@lab.org`;
  const veeEmail = `vee-${stamp}@lab.org`;
  const raeLink = await addPerson(request, raeEmail, 'researcher', 'Rae Search');
  const veeLink = await addPerson(request, veeEmail, 'viewer', 'Vee Ewer');
  const made = await request.put(`/api/admin/studies/sample/members/${raeEmail}`, {
    headers: ADMIN,
    data: { role: 'researcher' },
  });
  expect(made.status(), await made.text()).toBe(200);

  const rae = await (await browser.newContext()).newPage();
  await signInWithLink(rae, raeLink, 'Rae Search', 'researcher');
  await rae.goto('/studies/sample');
  await rae.getByRole('tab', { name: 'Members' }).click();
  const panel = rae.getByRole('tabpanel');
  await panel.getByLabel("Member's email").fill(veeEmail);
  await panel.getByLabel('Role on this study').selectOption('viewer');
  await panel.getByRole('button', { name: 'Add member' }).click();
  const table = panel.getByRole('table', { name: 'Members of this study' });
  await expect(table.getByLabel(`Role of ${veeEmail}`)).toHaveValue('viewer');
  await expect(table.getByLabel(`Role of ${raeEmail}`)).toHaveValue('researcher');
  // Made a viewer of this study, a researcher of the lab no longer sees its Members tab.
  const demoted = await request.put(`/api/admin/studies/sample/members/${raeEmail}`, {
    headers: ADMIN,
    data: { role: 'viewer' },
  });
  expect(demoted.status(), await demoted.text()).toBe(200);
  await rae.reload();
  await expect(rae.getByRole('tab', { name: 'Game levels' })).toBeVisible();
  for (const name of ['Members', 'Audit log', 'Exports', 'Grading'])
    await expect(rae.getByRole('tab', { name })).toHaveCount(0);
  await rae.context().close();

  const vee = await (await browser.newContext()).newPage();
  await signInWithLink(vee, veeLink, 'Vee Ewer', 'viewer');
  await vee.goto('/studies/sample');
  await expect(vee.getByRole('tab', { name: 'Game levels' })).toBeVisible();
  for (const name of ['Members', 'Audit log', 'Exports', 'Grading'])
    await expect(vee.getByRole('tab', { name })).toHaveCount(0);
  expect((await vee.request.get('/api/admin/studies/sample/members')).status()).toBe(403);
  expect((await vee.request.get('/api/admin/studies/sample/audit')).status()).toBe(403);
  await vee.context().close();
});

test('signing out everywhere ends every browser of the person; their personal token keeps working', async ({
  browser,
  request,
}) => {
  const email = `sam-${Date.now().toString(36)}@lab.org`;
  const laptop = await (await browser.newContext()).newPage();
  const csrf = await signInWithLink(
    laptop,
    await addPerson(request, email, 'researcher', 'Sam Ple'),
    'Sam Ple',
    'researcher',
  );
  const again = await request.post(`/api/admin/people/${email}/link`, { headers: ADMIN });
  expect(again.status(), await again.text()).toBe(200);
  const phone = await (await browser.newContext()).newPage();
  await signInWithLink(phone, ((await again.json()) as { link: string }).link, 'Sam Ple', 'researcher');
  const made = await laptop.request.post('/api/me/tokens', {
    headers: { 'X-CSRF-Token': csrf },
    data: { name: 'script' },
  });
  expect(made.status(), await made.text()).toBe(201);
  const token = ((await made.json()) as { token: string }).token;

  await laptop.goto('/tokens');
  await laptop.getByRole('button', { name: 'Sign out everywhere' }).click();
  const dialog = laptop.getByRole('dialog', { name: 'Sign out everywhere?' });
  await expect(dialog).toContainText('personal tokens keep working');
  await checkAtEachWidth(laptop, 'signout-everywhere-dialog');
  await dialog.getByRole('button', { name: 'Sign out everywhere' }).click();
  await expect(laptop).toHaveURL(/\/signin$/);
  // The other browser's next request is refused, and its page asks to sign in.
  expect((await phone.request.get('/api/me')).status()).toBe(401);
  await phone.reload();
  await expect(phone.getByRole('link', { name: 'Sign in' }).first()).toBeVisible();
  expect((await request.get('/api/me', { headers: { Authorization: `Bearer ${token}` } })).status()).toBe(200);
  const audit = (await (await request.get('/api/admin/audit', { headers: ADMIN })).json()) as {
    entries: { actor: string; action: string; detail: { ended?: number } }[];
  };
  expect(audit.entries.find((e) => e.action === 'signout.everywhere' && e.actor === email)?.detail.ended).toBe(2);
  await laptop.context().close();
  await phone.context().close();
});
