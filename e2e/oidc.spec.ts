/**
 * Signing in with OpenID Connect in the browser, against a real provider the test starts
 * (`oidc-provider` with its own login and consent pages): the sign-in page offers "Sign in with
 * <provider>", the provider's pages sign the person in, and the studio shows who they are; an
 * email the lab does not have comes back to the sign-in page, refused, with what to do.
 */
import { expect, test } from './studio-test';
import { ADMIN, startServer, type TestServer } from './arc3-helpers';
import { type TestProvider, startTestProvider } from '../src/server/people/oidcTesting';
import { OIDC_CALLBACK_PATH } from '../src/server/people/oidc';
import { expectAccessible } from './axe';

let provider: TestProvider;
let server: TestServer;

test.beforeAll(async () => {
  provider = await startTestProvider();
  // The studio is told the provider's issuer; the provider learns the studio's callback once it runs.
  server = await startServer([], {
    ARC_STUDIO_OIDC_ISSUER: provider.config.issuer,
    ARC_STUDIO_OIDC_CLIENT_ID: provider.config.clientId,
    ARC_STUDIO_OIDC_CLIENT_SECRET: provider.config.clientSecret,
    ARC_STUDIO_OIDC_NAME: provider.config.name,
  });
  provider.attach(server.base + OIDC_CALLBACK_PATH);
});
test.afterAll(async () => {
  await server?.stop();
  await provider?.close();
});

/** From the studio's sign-in page through the provider's login and consent pages, as `email`. */
async function signInAtProvider(page: import('@playwright/test').Page, email: string): Promise<void> {
  await page.goto(`${server.base}/signin`);
  await page.getByRole('link', { name: 'Sign in with Test Provider' }).click();
  await page.getByPlaceholder('Enter any login').fill(email);
  await page.getByPlaceholder('and password').fill('any password');
  await page.getByRole('button', { name: 'Sign-in' }).click();
  await page.getByRole('button', { name: 'Continue' }).click();
}

test('a person the lab has signs in with the provider and reaches the studio signed in', async ({ browser }) => {
  const email = `oi-${Date.now().toString(36)}@lab.org`;
  const added = await fetch(`${server.base}/api/admin/people`, {
    method: 'POST',
    headers: { ...ADMIN, 'Content-Type': 'application/json' },
    body: JSON.stringify({ email, role: 'researcher', name: 'Oi Dee' }),
  });
  expect(added.status, await added.text()).toBe(201);

  const page = await (await browser.newContext()).newPage();
  await page.goto(`${server.base}/signin`);
  await expect(page.getByRole('link', { name: 'Sign in with Test Provider' })).toBeVisible();
  for (const width of [1280, 768, 390]) {
    await page.setViewportSize({ width, height: 800 });
    await expectAccessible(page, `sign-in with a provider at ${width}`);
  }
  await page.setViewportSize({ width: 1280, height: 800 });
  await signInAtProvider(page, email);
  await expect(page).toHaveURL(`${server.base}/studies`);
  await expect(page.getByTestId('signed-in')).toContainText('Oi Dee (researcher)');
  const me = await page.request.get(`${server.base}/api/me`);
  expect(await me.json()).toMatchObject({ email, role: 'researcher', via: 'session' });
  await page.context().close();
});

test('an email the lab does not have comes back to the sign-in page, refused', async ({ browser }) => {
  const page = await (await browser.newContext()).newPage();
  await signInAtProvider(page, 'nobody@elsewhere.org');
  await expect(page).toHaveURL(`${server.base}/signin`);
  await expect(page.getByRole('alert')).toContainText('The lab has no account with the email the provider gave');
  expect((await page.request.get(`${server.base}/api/me`)).status()).toBe(401);
  await page.context().close();
});
