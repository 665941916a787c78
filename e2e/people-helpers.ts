/** The lab's people in browser tests: adding a person through the API and signing in with their link. */
import { expect, type APIRequestContext, type Page } from '@playwright/test';
import { ADMIN } from './study-helpers';

/** Adds a person with the researcher token; answers their one-time sign-in link (a path). */
export async function addPerson(
  request: APIRequestContext,
  email: string,
  role: string,
  name: string,
): Promise<string> {
  const res = await request.post('/api/admin/people', { headers: ADMIN, data: { email, role, name } });
  expect(res.status(), await res.text()).toBe(201);
  return ((await res.json()) as { link: string }).link;
}

/** Opens the sign-in link in the page and waits for the studio to show who signed in; answers the CSRF token. */
export async function signInWithLink(page: Page, link: string, name: string, role: string): Promise<string> {
  await page.goto(link);
  await expect(page).toHaveURL(/\/studies$/);
  await expect(page.getByTestId('signed-in')).toContainText(`${name} (${role})`);
  const me = await page.request.get('/api/me');
  expect(me.status()).toBe(200);
  return ((await me.json()) as { csrf: string }).csrf;
}
