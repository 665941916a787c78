/**
 * A run whose stored frames stop decoding (a step stored as changes to a frame that is not the
 * stored one before it) is read as far as it goes and named damaged with its step: the replay
 * route answers a whole document with the session's other runs intact, a run read back for play
 * stores its next step as a keyframe, and the recording export says which step.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeFrames, type FrameGrid } from '../../core/formats/frames';
import { hashGrid } from '../../core/game/serverGame';
import { backends } from '../store/testing';
import type { GameStepRecord, Store } from '../store/types';
import { adminRunsRoutes } from './adminRuns';
import { RunFrames } from './stepJournal';
import { decodeStepsChecked } from './steps';
import { runRecordingLines } from './storedRuns';
import type { Arc3FrameData } from './worker';

/** A 4x4 frame filled with `c`, but for cell (0, 0) which is `c + 1`. */
const frame = (c: number): FrameGrid =>
  Array.from({ length: 4 }, (_, y) => Array.from({ length: 4 }, (_, x) => (x || y ? c : c + 1)));

/** Step `n` of a run showing `frames[n]`, encoded against `reference` (a keyframe when null). */
const step = (runId: string, n: number, shown: FrameGrid, reference: FrameGrid | null): GameStepRecord => ({
  runId,
  step: n,
  action: n ? 'ACTION1' : 'RESET',
  x: null,
  y: null,
  state: 'NOT_FINISHED',
  levelsCompleted: 0,
  winLevels: 3,
  available: [1, 2],
  fullReset: n === 0,
  frameHash: hashGrid(shown),
  frames: encodeFrames([shown], reference),
  keyframe: reference === null,
  at: 4000 + n,
});

describe.each(backends)('damaged runs on $name', (backend) => {
  let store: Store;
  const shown = [frame(1), frame(2), frame(3), frame(4)];
  /** Run `bad`: step 2 was encoded against a frame the run never stored. Run `good`: whole. */
  const bad = [
    step('bad', 0, shown[0], null),
    step('bad', 1, shown[1], shown[0]),
    step('bad', 2, shown[2], frame(9)),
    step('bad', 3, shown[3], shown[2]),
  ];
  const good = shown.map((f, n) => step('good', n, f, n ? shown[n - 1] : null));

  beforeAll(async () => {
    store = await backend.open();
    await store.saveStudy('s1', { title: 'one' }, 'file', 1000);
    await store.createSession({
      id: 'a',
      studyId: 's1',
      studyVersion: 1,
      tokenHash: 'h',
      params: {},
      seed: 7,
      order: [0],
      createdAt: 2000,
    });
    for (const runId of ['bad', 'good'])
      await store.addGameRun({
        runId,
        sessionId: 'a',
        item: 'g',
        gameId: 'ls20-0',
        source: 'arcengine',
        engine: 'arcengine 0.9.3',
        seed: 0,
        openedAt: 4000,
      });
    for (const s of [...bad, ...good]) expect(await store.addGameStep(s)).toBe(true);
  });
  afterAll(async () => {
    await store.close();
  });

  it('names the first step that does not decode, and decodes again from the next keyframe', () => {
    const read = decodeStepsChecked(bad);
    expect(read.damage).toMatchObject({ step: 2, message: expect.stringMatching(/different frame/) });
    expect(read.decoded.map((d) => d.record.step)).toEqual([0, 1]);
    expect(read.lastKnown).toBe(false);
    const healed = decodeStepsChecked([...bad, step('bad', 4, shown[0], null)]);
    expect(healed.decoded.map((d) => d.record.step)).toEqual([0, 1, 4]);
    expect(healed.lastKnown).toBe(true);
    expect(decodeStepsChecked(good)).toMatchObject({ damage: null, lastKnown: true });
  });

  it('sends the replay whole: the damaged run up to its damage and marked, the other run entire', async () => {
    const res = await adminRunsRoutes({ store, replayer: null }).request('/sessions/a/runs');
    expect(res.status).toBe(200);
    const doc = JSON.parse(await res.text()) as {
      runs: { runId: string; steps: { step: number; frameHash: string }[]; damaged?: { step: number } }[];
    };
    expect(doc.runs.map((r) => [r.runId, r.steps.map((s) => s.step), r.damaged?.step ?? null])).toEqual([
      ['bad', [0, 1], 2],
      ['good', [0, 1, 2, 3], null],
    ]);
    expect(doc.runs[1].steps.map((s) => s.frameHash)).toEqual(shown.map(hashGrid));
  });

  it('stores the next step of a damaged run as a keyframe, and of a whole run as changes to its stored frame', () => {
    const next: Arc3FrameData = {
      game_id: 'ls20-0',
      guid: 'x',
      frame: [frame(5).map((r) => [...r])],
      state: 'NOT_FINISHED',
      levels_completed: 0,
      win_levels: 3,
      available_actions: [1, 2],
      full_reset: false,
    };
    const damaged = RunFrames.stored(bad, shown[3]);
    expect(damaged.damage).toMatch(/^step 2: /);
    expect(damaged.frames.encode(next, { stored: true, restart: false }).keyframe).toBe(true);
    // The reference is the stored frame, not the fallback (an engine's rebuild) given beside it.
    const whole = RunFrames.stored(good, frame(7));
    expect(whole.damage).toBeNull();
    const encoded = whole.frames.encode(next, { stored: true, restart: false });
    expect(encoded.keyframe).toBe(false);
    expect(
      decodeStepsChecked([...good, { ...step('good', 4, frame(5), null), frames: encoded.changes, keyframe: false }])
        .damage,
    ).toBeNull();
  });

  it('says which step of a run cannot be exported', async () => {
    const [badRun, goodRun] = await store.listGameRuns('a');
    await expect(runRecordingLines(store, badRun)).rejects.toThrow(/run bad is damaged at step 2: /);
    expect(await runRecordingLines(store, goodRun)).toHaveLength(4);
  });
});
