/**
 * A day at a testing centre, in the real app and server: a proctor registers three stations (each
 * a browser context of its own, opened once with its station link), checks in five participants
 * in turn, two at a station, pauses and resumes one, and the console shows each state; each
 * participant works through the study at their station; once they are done the station keeps
 * nothing of them (page, IndexedDB, local storage); a station retired is hidden and refuses
 * check-ins until put back; the payout sheet adds up.
 */
import { expect, test, type Browser, type Page } from './studio-test';
import { expectAccessible } from './axe';
import { picture, setWindowSize } from './helpers';
import { ADMIN, completeCurrentItem, type StudyFile } from './study-helpers';

const CANDIDATES = ['count-objects-bar', 'most-common-color', 'downscale-blocks'];
const study = (id: string) => ({
  title: 'A day at the centre',
  consent: 'You agree to take part at this station.',
  instructions: 'Solve the grid.',
  payment: { currency: 'USD', fee: 130, bonus: { perSolve: 5 } },
  items: [
    { kind: 'page', id: 'welcome', markdown: 'Welcome to the centre.' },
    {
      kind: 'pool',
      id: `grids-${id}`,
      draw: 1,
      fill: 'fast',
      target: { solves: 50 },
      candidates: CANDIDATES.map((task) => ({ kind: 'task', id: task, collection: 'samples', task })),
    },
  ],
  completion: { code: 'CENTRE' },
});
/** The study as a participant meets it, for the helpers that solve its items. */
const runnable: StudyFile = {
  items: [
    { kind: 'page', id: 'welcome' },
    ...CANDIDATES.map((task) => ({ kind: 'task' as const, id: task, collection: 'samples', task })),
  ],
  completion: { code: 'CENTRE' },
};

/** A station's machine: a browser of its own, opened once with the station link. */
async function openStation(browser: Browser, link: string): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  await page.goto(link);
  await expect(page).toHaveURL(/\/station$/);
  await expect(page.getByRole('heading', { name: 'Check in' })).toBeVisible();
  return page;
}

/** What the station's browser keeps: its study sessions and events in IndexedDB, and local storage's keys. */
async function kept(page: Page): Promise<{ sessions: number; events: number; storage: string[] }> {
  return page.evaluate(async () => {
    const db = await new Promise<IDBDatabase>((resolve, reject) => {
      const r = indexedDB.open('arc-studio');
      r.onsuccess = () => resolve(r.result);
      r.onerror = () => reject(r.error);
    });
    const count = (name: string) =>
      new Promise<number>((resolve, reject) => {
        const r = db.transaction(name).objectStore(name).count();
        r.onsuccess = () => resolve(r.result);
        r.onerror = () => reject(r.error);
      });
    const out = {
      sessions: await count('sessions'),
      events: await count('events'),
      storage: Object.keys(localStorage),
    };
    db.close();
    return out;
  });
}

test('a testing-centre day: three stations, five participants, a break, and the payout sheet', async ({
  page,
  browser,
  request,
}) => {
  test.setTimeout(600_000);
  const id = `centre-${Date.now().toString(36)}`;
  expect(
    (await request.post(`/api/admin/studies/${id}`, { headers: ADMIN, data: { definition: study(id) } })).status(),
  ).toBe(201);

  await page.goto(`/login#token=${process.env.E2E_ADMIN_TOKEN}`);
  await expect(page.getByRole('heading', { name: 'Studies' })).toBeVisible();
  await page.goto(`/studies/${id}/centre`);
  await expect(page.getByRole('heading', { name: /Testing centre/ })).toBeVisible();

  const stations = new Map<string, Page>();
  for (const name of ['A', 'B', 'C']) {
    await page.getByLabel('New station').fill(name);
    await page.getByRole('button', { name: 'Add station' }).click();
    await expect(page.getByTestId('station-link')).toHaveAttribute('data-station', name);
    const link = (await page.getByTestId('station-link').textContent())!;
    expect(link).toContain('/station#');
    stations.set(name, await openStation(browser, link));
    await expect(page.getByTestId(`station-${name}`)).toHaveAttribute('data-state', 'free');
  }
  const card = (name: string) => page.getByTestId(`station-${name}`);

  /** The proctor checks `pid` in at `name`; the participant agrees and begins there. */
  const seat = async (name: string, pid: string) => {
    await card(name).getByLabel(`Participant id for station ${name}`).fill(pid);
    await card(name).getByRole('button', { name: 'Check in' }).click();
    const station = stations.get(name)!;
    await expect(station.getByTestId('station-consent')).toContainText('You agree to take part at this station.');
    await station.getByRole('button', { name: 'I agree, begin' }).click();
    await station.getByRole('button', { name: 'Begin', exact: true }).click();
    await expect(station.locator('[data-item="welcome"]')).toBeVisible();
    await expect(card(name)).toHaveAttribute('data-state', 'running');
    await expect(card(name).getByTestId('station-participant')).toHaveText(pid);
  };
  /** The participant at `name` works through the study; the station clears itself and keeps nothing of them. */
  const finish = async (name: string, pid: string) => {
    const station = stations.get(name)!;
    await completeCurrentItem(station, runnable);
    await completeCurrentItem(station, runnable);
    await expect(station.getByTestId('station-note')).toHaveText(/saved and cleared/);
    await expect(card(name)).toHaveAttribute('data-state', 'free');
    await expect(station.locator('body')).not.toContainText(pid);
    expect(await kept(station)).toEqual({ sessions: 0, events: 0, storage: ['arc-studio.station'] });
  };

  await seat('A', 'p1');
  await seat('B', 'p2');
  await seat('C', 'p3');

  // A break for p3: the console and the station show it, and the station's clocks stop.
  await card('C').getByRole('button', { name: 'Pause' }).click();
  await expect(card('C')).toHaveAttribute('data-state', 'paused', { timeout: 1_000 });
  const c = stations.get('C')!;
  await expect(c.getByTestId('study-paused')).toBeVisible();
  await picture(page, 'centre-console-1280');
  await picture(c, 'centre-station-paused-1280');
  await setWindowSize(page, { width: 390, height: 844 });
  await setWindowSize(c, { width: 390, height: 844 });
  await picture(page, 'centre-console-390', { fullPage: true });
  await picture(c, 'centre-station-paused-390');
  await expectAccessible(c, 'station, paused');
  await setWindowSize(page, { width: 1280, height: 800 });
  await setWindowSize(c, { width: 1280, height: 800 });
  await card('C').getByRole('button', { name: 'Resume' }).click();
  await expect(card('C')).toHaveAttribute('data-state', 'running', { timeout: 1_000 });
  await expect(c.getByTestId('study-paused')).toHaveCount(0);
  await expect(card('C').getByText('Breaks')).toBeVisible();

  // A note and a flag, by the proctor.
  await card('B').getByLabel('Note on station B').fill('asked for water');
  await card('B').getByRole('button', { name: 'Note' }).click();
  await expect(card('B').getByText('asked for water')).toBeVisible({ timeout: 1_000 });

  await finish('A', 'p1');
  await seat('A', 'p4');
  await finish('B', 'p2');
  await seat('B', 'p5');
  await picture(stations.get('A')!, 'centre-station-running-1280');
  for (const [name, pid] of [
    ['C', 'p3'],
    ['A', 'p4'],
    ['B', 'p5'],
  ] as const)
    await finish(name, pid);

  // Station C is retired: the console hides it, and its own page says so and checks no one in.
  await card('C').getByRole('button', { name: 'Retire station' }).click();
  await expect(card('C')).toHaveCount(0);
  await expect(c.getByRole('alert')).toContainText('Station C is retired');
  await c.getByLabel('Your participant id').fill('p6');
  await expect(c.getByRole('button', { name: 'Check in' })).toBeDisabled();
  await page.getByLabel('Show retired stations').check();
  await expect(card('C')).toHaveAttribute('data-state', 'retired');
  await expect(card('C').getByLabel('Participant id for station C')).toHaveCount(0);
  await card('C').getByRole('button', { name: 'Put back in service' }).click();
  await expect(card('C')).toHaveAttribute('data-state', 'free');
  await expect(c.getByRole('alert')).toHaveCount(0);
  await expect(c.getByRole('button', { name: 'Check in' })).toBeEnabled();

  // The payout sheet: five slips, each the fee and a solve's bonus, summed in the footer.
  await page.getByRole('link', { name: 'Payout sheet' }).click();
  await expect(page.getByTestId('payout-row')).toHaveCount(5);
  const totals = (await page.getByTestId('payout-total').allTextContents()).map(Number);
  expect(totals).toEqual([135, 135, 135, 135, 135]);
  await expect(page.getByTestId('payout-sum')).toHaveText('675.00 USD');
  await expectAccessible(page, 'payout sheet');
  await page.getByRole('link', { name: 'Slip of p3' }).click();
  await expect(page.getByTestId('payout-slip')).toContainText('135.00 USD');
  for (const s of stations.values()) await s.context().close();
});
