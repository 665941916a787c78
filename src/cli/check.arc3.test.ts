/**
 * `arc-studio check` on a data folder whose game runs were damaged as database faults damage
 * them: one run lost its last steps (a database that lost acknowledged commits), another has a
 * step stored as changes to a frame the run never stored. The check names both with their
 * steps; `--repair` plays them again on the official engine from the participants' logs and
 * stores them again, every step with the frame the participant saw; a second check finds nothing.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../server/store/open';
import { encodeFrames } from '../core/formats/frames';
import type { ServerStep } from '../core/game/serverGame';
import { decodeStoredSteps } from '../server/arc3/steps';
import { runCli } from './testing';
import {
  ENGINE_CHANGES,
  FIXTURES,
  GATE_STUDY,
  TG01,
  TG01_LEVEL_1,
  logRun,
  playRun,
  withPlayingApi,
} from './arc3Testing';

const ENV = { ...process.env, ...ENGINE_CHANGES };
const dir = mkdtempSync(path.join(tmpdir(), 'arc-studio-check-'));
const dataDir = path.join(dir, 'data');
const check = (...args: string[]) => runCli(['check', '--data-dir', dataDir, ...args], ENGINE_CHANGES);
/** Per run, the steps its participant saw. */
const seen = new Map<string, ServerStep[]>();

beforeAll(async () => {
  // Two participants play the fixture's first level on the official engine, through the routes.
  const games = { dirs: [FIXTURES], servers: [], env: ENV, workers: 1 };
  await withPlayingApi(dataDir, games, { id: 'gate', definition: GATE_STUDY }, async ({ post }) => {
    for (const pid of ['lost', 'wrong']) {
      const played = await playRun(post, 'gate', 'gate', { PROLIFIC_PID: pid }, TG01_LEVEL_1);
      seen.set(pid, played.steps);
      await logRun(post, played, 'gate', TG01);
    }
  });
  const store = await openStore({ dataDir });
  try {
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
