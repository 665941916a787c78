/**
 * `arc-studio check` on a data folder whose game runs were damaged as database faults damage
 * them: one run lost its last steps (a database that lost acknowledged commits), another has a
 * step stored as changes to a frame the run never stored. The check names both with their
 * steps; `--repair` plays them again on the official engine from the participants' logs and
 * stores them again, every step with the frame the participant saw; a second check finds nothing.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApi } from '../server/app';
import { hashToken } from '../server/people/auth';
import { TaskLibrary } from '../server/collections/collections';
import { startArc3, studioGames } from '../server/arc3/mount';
import { openStore } from '../server/store/open';
import { gameIds } from '../server/study/studies';
import { encodeFrames } from '../core/formats/frames';
import { parseActions } from '../core/game';
import { serverStepEventData, type ServerRunReply, type ServerStep } from '../core/game/serverGame';
import { seedDataDir } from '../server/store/testing';
import { decodeStoredSteps } from '../server/arc3/steps';
import { runCli } from './testing';

const ROOT = path.resolve(__dirname, '../..');
const PYTHONPATH = path.resolve(ROOT, '../shared/vendor/arc-agi-3/python');
const FIXTURES = path.join(ROOT, 'e2e/fixtures/arc3-games');
if (!existsSync(path.join(PYTHONPATH, 'arcengine')))
  throw new Error(`the official engine must be at ${PYTHONPATH}; these tests run against it`);
const CHANGES = {
  ARC_STUDIO_PYTHONPATH: PYTHONPATH,
  ARC_STUDIO_ARC3_GAMES: '',
  PYTHONDONTWRITEBYTECODE: '1',
  DATABASE_URL: '',
};
const ENV = { ...process.env, ...CHANGES };
const TG01 = 'tg01-5e1f0a27';
/** The fixture's first level, as its README records it: 10 actions after the opening RESET. */
const LEVEL_1 = 'ACTION2,ACTION2,ACTION4,ACTION4,ACTION4,ACTION4,ACTION4,ACTION2,ACTION2,ACTION2';
const ADMIN = 'researcher-token-for-cli-check-tests';
const STUDY = {
  title: 'Gatekeeper',
  consent: 'Yes.',
  completion: { code: 'G' },
  items: [{ kind: 'game', id: 'gate', game: TG01 }],
};

const dir = mkdtempSync(path.join(tmpdir(), 'arc-studio-check-'));
const dataDir = path.join(dir, 'data');
const check = (...args: string[]) => runCli(['check', '--data-dir', dataDir, ...args], CHANGES);
/** Per run, the steps its participant saw. */
const seen = new Map<string, ServerStep[]>();

beforeAll(async () => {
  // Two participants play the fixture's first level on the official engine, through the routes.
  seedDataDir(dataDir);
  const store = await openStore({ dataDir });
  const arc3 = await startArc3({ dirs: [FIXTURES], servers: [], env: ENV, workers: 1 }, store, () => {});
  try {
    await store.saveStudy('gate', STUDY, 'file', Date.now());
    const app = createApi({
      library: new TaskLibrary(),
      version: 'test',
      study: {
        store,
        adminTokenHash: hashToken(ADMIN),
        replay: studioGames(arc3).replay,
        games: new Set([...gameIds, ...arc3.service.ids]),
        arc3: { service: arc3.service, engine: arc3.engine },
      },
    });
    const post = async (url: string, token: string | null, body: unknown) => {
      const res = await app.request(url, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', ...(token ? { Authorization: `Bearer ${token}` } : {}) },
        body: JSON.stringify(body),
      });
      const json = (await res.json()) as Record<string, unknown>;
      if (res.status >= 300) throw new Error(`${url}: ${res.status} ${JSON.stringify(json)}`);
      return json;
    };
    for (const pid of ['lost', 'wrong']) {
      const { sessionId, token } = (await post('/studies/gate/sessions', null, { params: { PROLIFIC_PID: pid } })) as {
        sessionId: string;
        token: string;
      };
      const opened = (await post(`/sessions/${sessionId}/runs`, token, { item: 'gate' })) as unknown as ServerRunReply;
      const steps: ServerStep[] = [opened.steps[0]];
      for (const input of parseActions(LEVEL_1))
        steps.push(
          (await post(`/sessions/${sessionId}/runs/${opened.run}/actions`, token, {
            step: steps.length,
            ...input,
          })) as unknown as ServerStep,
        );
      seen.set(pid, steps);
      const events = [
        { kind: 'session.start', data: { wallClock: '2026-02-01T09:00:00.000Z' } },
        { kind: 'item.start', data: { item: 'gate', kind: 'game' } },
        {
          kind: 'game.open',
          data: { game: TG01, seed: 0, run: opened.run, source: 'arcengine', engine: opened.game.engine },
        },
        ...steps.map((s) => ({ kind: 'game.action', data: serverStepEventData(s) })),
      ].map((e, seq) => ({ seq, t: seq * 200, ...e }));
      await post(`/sessions/${sessionId}/events`, token, { events });
    }
    // The damage: one run lost steps 8 to 10; the other's step 5 is stored as changes to a frame it never had.
    const lost = seen.get('lost')![0].run;
    expect(await store.removeGameSteps(lost, 8)).toBe(3);
    const wrong = seen.get('wrong')![0].run;
    const decoded = decodeStoredSteps(await store.readGameSteps(wrong));
    await store.removeGameSteps(wrong, 5);
    const other = decoded[0].frames[0].map((row) => row.map((c) => (c + 1) % 16));
    for (const d of decoded.slice(5))
      await store.addGameStep({
        ...d.record,
        keyframe: false,
        frames: encodeFrames(d.frames, d.record.step === 5 ? other : decoded[d.record.step - 1].last),
      });
  } finally {
    await arc3.service.stop();
    await store.close();
  }
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('arc-studio check', () => {
  it("finds the damaged runs, repairs them from the participants' logs, and then finds none", async () => {
    const [lost, wrong] = ['lost', 'wrong'].map((p) => seen.get(p)![0].run);
    const found = await check();
    expect(found.code, found.err).toBe(1);
    expect(found.out).toContain(`run ${lost} of ${TG01}`);
    expect(found.out).toMatch(
      new RegExp(`run ${lost} .*: unstored from step 8: the participant's log has steps 8 to 10`),
    );
    expect(found.out).toMatch(new RegExp(`run ${wrong} .*: frames from step 5: .*different frame`));
    expect(found.out).toMatch(/2 game runs in PGlite in .*: 2 damaged\n$/);

    const noEngine = await check('--repair');
    expect(noEngine.code).toBe(1);
    expect(noEngine.err).toMatch(/--repair plays the runs again: give the folders/);

    const repaired = await check('--repair', '--arc3-games', FIXTURES);
    expect(repaired.code, repaired.out + repaired.err).toBe(0);
    expect(repaired.out).toMatch(new RegExp(`run ${lost} .*repaired: 3 steps stored again`));
    expect(repaired.out).toMatch(new RegExp(`run ${wrong} .*repaired: 6 steps stored again`));

    const store = await openStore({ dataDir });
    try {
      for (const p of ['lost', 'wrong']) {
        const steps = seen.get(p)!;
        const stored = decodeStoredSteps(await store.readGameSteps(steps[0].run));
        expect(stored.map((s) => [s.record.step, s.record.action, s.record.frameHash])).toEqual(
          steps.map((s) => [s.step, s.action, s.frameHash]),
        );
      }
    } finally {
      await store.close();
    }
    const again = await check('--json');
    expect(again.code).toBe(0);
    expect(JSON.parse(again.out.trim())).toEqual({ runs: 2, damaged: 0, repaired: 0 });
  });
});
