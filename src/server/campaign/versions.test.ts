/**
 * A campaign's game revised mid-campaign, on the official engine in a real Python worker: a copy
 * of the vendored vc33 is a pool's candidate; three participants play it and none completes
 * level 1; the designer edits its file and the game is reloaded; three more play the new code and
 * complete level 1. The campaign view shows the two code versions side by side, which one is
 * mounted and when each was first played, each with the figures recomputed from its own runs
 * (the runs' recorded code and their stored steps). The study's results, its baselines export and
 * its attempts export split the game the same way, with the row of all versions kept; an agent is
 * scored against the baselines of the code it played, and refused those of other code. Then a
 * candidate skipped for lack of time
 * stays skipped: a run of it is refused (409 `item_skipped`) even after an `item.start` for it.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Hono } from 'hono';
import { serverStepEventData, type ServerRunReply, type ServerStep } from '../../core/game/serverGame';
import type { CampaignView } from '../../core/protocol/campaign';
import type { StudyResults } from '../../core/analysis/results';
import { parseCsvObjects } from '../../core/formats/csv';
import type { StudyDefinitionInput } from '../../core/study/schema';
import { openStore } from '../store/open';
import { seedDataDir } from '../store/testing';
import type { Store } from '../store/types';
import { readGameFolder } from '../arc3/gameCode';
import type { Arc3Started } from '../arc3/mount';
import { VC33, arc3Api, editableGame } from '../testing/arc3';
import { hashToken } from '../people/auth';
import { apiCaller } from '../testing/api';
import { AgentService, RESEARCHER } from '../agents/service';
import { studyBaselines } from '../agents/baselines';

const ADMIN = 'researcher-token-for-campaign-versions';
const MIN = 60_000;
/** Three clicks here complete vc33's level 1 (`arc3/officialCounts.test.ts`); two do not. */
const CLICK = { action: 'ACTION6', x: 60, y: 32 } as const;

function study(opts: { sessionMinutes?: number; minMinutesLeft?: number; page?: boolean } = {}): StudyDefinitionInput {
  return {
    title: 'Revised game',
    consent: 'Consent.',
    completion: { code: 'DONE' },
    // Every play counts, however short.
    attempt: { minActions: 0 },
    limits: { sessionMinutes: opts.sessionMinutes ?? 60, abandonAfterMinutes: 30 },
    items: [
      ...(opts.page ? [{ kind: 'page' as const, id: 'intro', markdown: 'Hello.' }] : []),
      {
        kind: 'pool',
        id: 'games',
        draw: 1,
        target: { solves: 2 },
        ...(opts.minMinutesLeft !== undefined ? { minMinutesLeft: opts.minMinutesLeft } : {}),
        candidates: [{ kind: 'game', id: 'g', game: VC33 }],
      },
    ],
  };
}

const median = (xs: number[]) => {
  if (!xs.length) return null;
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

describe('a campaign whose game is revised mid-campaign', () => {
  let root: string;
  let gameDir: string;
  let store: Store;
  let arc3: Arc3Started;
  let app: Hono;
  let clock = Date.UTC(2026, 5, 1, 9);
  const call = apiCaller(() => app);
  /** The code versions before and after the designer's edit, set by the first test. */
  let before = '';
  let after = '';
  /** An export of study `rev` downloaded through its one-time link. */
  const download = async (format: string) => {
    const made = await call('POST', 'admin/studies/rev/exports', ADMIN, { format });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    const res = await app.request((made.body as { url: string }).url.replace(/^\/api/, ''));
    expect(res.status).toBe(200);
    return parseCsvObjects(await res.text());
  };

  /** One participant: a session, a run of the candidate with `clicks` clicks, its log, finished. */
  const play = async (studyId: string, pid: string, clicks: number) => {
    const s = (await call('POST', `studies/${studyId}/sessions`, null, { params: { PROLIFIC_PID: pid } })).body as {
      sessionId: string;
      token: string;
    };
    let seq = 0;
    const log = async (events: { kind: string; data: Record<string, unknown> }[]) => {
      const batch = events.map((e) => ({ seq: seq++, t: seq * 400, ...e }));
      const r = await call('POST', `sessions/${s.sessionId}/events`, s.token, { events: batch });
      expect(r.status, JSON.stringify(r.body)).toBe(200);
    };
    await log([{ kind: 'item.start', data: { item: 'g', kind: 'game' } }]);
    const opened = await call('POST', `sessions/${s.sessionId}/runs`, s.token, { item: 'g', lastSeq: seq - 1 });
    expect(opened.status, JSON.stringify(opened.body)).toBe(200);
    const run = opened.body as ServerRunReply;
    const steps: ServerStep[] = [...run.steps];
    for (let k = 1; k <= clicks; k++) {
      const r = await call('POST', `sessions/${s.sessionId}/runs/${run.run}/actions`, s.token, { step: k, ...CLICK });
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      steps.push(r.body as ServerStep);
    }
    await arc3.service.stepsStored();
    await log([
      {
        kind: 'game.open',
        data: { game: VC33, seed: 0, run: run.run, source: 'arcengine', version: run.game.version },
      },
      ...steps.map((step) => ({ kind: 'game.action', data: serverStepEventData(step) })),
      { kind: 'item.end', data: { item: 'g' } },
    ]);
    const f = await call('POST', `sessions/${s.sessionId}/finish`, s.token, { lastSeq: seq - 1 });
    expect(f.status, JSON.stringify(f.body)).toBe(200);
    return s;
  };

  beforeAll(async () => {
    root = mkdtempSync(path.join(tmpdir(), 'campaign-versions-'));
    gameDir = editableGame(root, 'vc33/5430563c');
    const dataDir = path.join(root, 'data');
    seedDataDir(dataDir);
    store = await openStore({ dataDir });
    const games = [path.join(root, 'games')];
    ({ app, arc3 } = await arc3Api(store, {
      admin: ADMIN,
      dirs: games,
      codeDir: path.join(dataDir, 'arc3-code'),
      now: () => clock,
    }));
  });
  afterAll(async () => {
    await arc3?.service.stop();
    await store?.close().catch(() => undefined);
    rmSync(root, { recursive: true, force: true });
  });

  it('shows the two code versions side by side, each with the figures of its own runs', async () => {
    expect((await call('POST', 'admin/studies/rev', ADMIN, { definition: study() })).status).toBe(201);
    before = (await readGameFolder(gameDir)).hash;
    for (const pid of ['a1', 'a2', 'a3']) await play('rev', pid, 2);
    const firstAfter = clock + 10 * MIN;
    clock = firstAfter;
    // The designer changes the file (a comment: the same game, other code); the game is reloaded.
    const file = path.join(gameDir, 'vc33.py');
    writeFileSync(file, `${readFileSync(file, 'utf8')}\n# revised\n`);
    await arc3.service.reload(VC33);
    after = (await readGameFolder(gameDir)).hash;
    expect(after).not.toBe(before);
    for (const pid of ['b1', 'b2', 'b3']) await play('rev', pid, 3);

    const view = (await call('GET', 'admin/studies/rev/campaign', ADMIN)).body as CampaignView;
    const [candidate] = view.candidates;
    expect(candidate.versions.map((v) => [v.version, v.mounted])).toEqual([
      [`${VC33}@${before}`, false],
      [`${VC33}@${after}`, true],
    ]);

    // Recomputed from the runs: the code each recorded, and its stored steps.
    const sessions = await store.listSessions('rev');
    for (const v of candidate.versions) {
      const runs = (await Promise.all(sessions.map((s) => store.listGameRuns(s.id))))
        .flat()
        .filter((r) => `${r.gameId}@${r.codeHash}` === v.version);
      const plays = await Promise.all(
        runs.map(async (r) => {
          const steps = (await store.readGameSteps(r.runId)).filter((s) => s.action !== 'RESET');
          const done = steps.findIndex((s) => s.levelsCompleted >= 1);
          return { openedAt: r.openedAt, completed: done >= 0, actions: done + 1 };
        }),
      );
      const completed = plays.filter((p) => p.completed);
      expect(v.firstPlayedAt).toBe(Math.min(...plays.map((p) => p.openedAt)));
      expect({ attempts: v.attempts, solves: v.solves }).toEqual({ attempts: plays.length, solves: 0 });
      expect(v.levels![0]).toMatchObject({
        level: 1,
        reached: plays.length,
        completed: completed.length,
        medianActions: median(completed.map((p) => p.actions)),
      });
    }
    // The old code's level 1: 0 of 3; the new one's: 3 of 3 in 3 actions.
    expect(candidate.versions.map((v) => [v.levels![0].completed, v.levels![0].medianActions])).toEqual([
      [0, null],
      [3, 3],
    ]);
    expect(candidate.versions[1].firstPlayedAt).toBeGreaterThanOrEqual(candidate.versions[0].firstPlayedAt!);
  });

  it("splits the study's results, baselines and attempts by the code each run was opened on", async () => {
    const results = (await call('GET', 'admin/studies/rev/results', ADMIN)).body as StudyResults;
    const level1 = (version: string | null) => {
      const row = results.games.find((g) => g.version === version);
      expect(row, `a results row of ${version ?? 'all versions'}`).toBeDefined();
      return [row!.participants, row!.levels[0].reached, row!.levels[0].completed, row!.levels[0].actions.median];
    };
    // The row of all versions first, then each version with its own level-1 rate: 0 of 3 on the
    // old code, 3 of 3 in 3 actions on the new.
    expect(results.games.map((g) => [g.version, g.allVersions, g.current])).toEqual([
      [null, true, false],
      [`${VC33}@${after}`, false, true],
      [`${VC33}@${before}`, false, false],
    ]);
    expect(level1(null)).toEqual([6, 6, 3, 3]);
    expect(level1(`${VC33}@${before}`)).toEqual([3, 3, 0, null]);
    expect(level1(`${VC33}@${after}`)).toEqual([3, 3, 3, 3]);

    // The baselines export: the current code under the game's id, the old code under its version.
    const baselines = (await download('baselines-csv')).filter((r) => r.level === '1' && r.preset === 'best');
    expect(baselines.map((r) => [r.game, r.version, r.participants, r.reached, r.completers, r.baseline])).toEqual([
      [VC33, `${VC33}@${after}`, '3', '3', '3', '3'],
      [`${VC33}@${before}`, `${VC33}@${before}`, '3', '3', '0', ''],
    ]);

    // Each attempt says the code it was played on.
    const attempts = await download('csv');
    const byPid = new Map(attempts.map((r) => [r.participant_id, r.version]));
    expect(['a1', 'a2', 'a3', 'b1', 'b2', 'b3'].map((pid) => byPid.get(pid))).toEqual([
      ...Array(3).fill(`${VC33}@${before}`),
      ...Array(3).fill(`${VC33}@${after}`),
    ]);
  });

  it('scores an agent against the human baselines of the code it played, and refuses those of other code', async () => {
    const agents = new AgentService({
      store,
      adminTokenHash: hashToken(ADMIN),
      arc3: arc3.service,
      now: () => clock,
      studyBaselines: async (id) => {
        const r = await call('GET', `admin/studies/${id}/results`, ADMIN);
        return r.status === 200 ? studyBaselines(r.body as StudyResults) : null;
      },
    });
    type Card = {
      environments: { baselines: string | null; runs: { level_baseline_actions: number[]; message?: string }[] }[];
    };
    /** A scorecard of the study: vc33 played to level 1's completion, then closed. */
    const play = async () => {
      const card = await agents.openCard(RESEARCHER, { tags: ['study:rev'] });
      const opened = await agents.command(RESEARCHER, 'RESET', { game_id: VC33, card_id: card });
      const { guid } = JSON.parse(opened.json) as { guid: string };
      for (let k = 0; k < 3; k++) await agents.command(RESEARCHER, 'ACTION6', { game_id: VC33, guid, ...CLICK });
      return (await agents.closeCard(RESEARCHER, card)) as Card;
    };
    try {
      // The code mounted now is the new code, whose three players completed level 1 in 3 actions.
      const onNew = (await play()).environments[0];
      expect([onNew.baselines, onNew.runs[0].level_baseline_actions[0]]).toEqual(['study:rev', 3]);

      // Revised once more: no participant played that code, so the study's figures are refused.
      const file = path.join(gameDir, 'vc33.py');
      writeFileSync(file, `${readFileSync(file, 'utf8')}\n# revised again\n`);
      await arc3.service.reload(VC33);
      const third = (await readGameFolder(gameDir)).hash;
      const onThird = (await play()).environments[0];
      expect(onThird.baselines).toBeNull();
      expect(onThird.runs[0].message).toBe(
        `Human baseline actions are not available for this environment: study "rev" has human baselines of ${VC33}@${after}, ${VC33}@${before} only, and this agent played ${VC33}@${third}; score it against a study whose participants played that version, or collect baselines of it`,
      );
    } finally {
      await agents.stop();
    }
  });

  it('refuses a run of a candidate skipped for lack of time, even after an item.start for it', async () => {
    const definition = study({ sessionMinutes: 12, minMinutesLeft: 10, page: true });
    expect((await call('POST', 'admin/studies/skip', ADMIN, { definition })).status).toBe(201);
    const s = (await call('POST', 'studies/skip/sessions', null, { params: { PROLIFIC_PID: 'late' } })).body as {
      sessionId: string;
      token: string;
    };
    const events = (list: { kind: string; data: Record<string, unknown> }[], from: number) =>
      list.map((e, k) => ({ seq: from + k, t: (from + k) * 100, ...e }));
    const send = async (list: { kind: string; data: Record<string, unknown> }[], from: number) =>
      expect(
        (await call('POST', `sessions/${s.sessionId}/events`, s.token, { events: events(list, from) })).status,
      ).toBe(200);
    await send([{ kind: 'item.start', data: { item: 'intro', kind: 'page' } }], 0);
    // Seven minutes left: the candidate needs ten, so the session view says it is skipped.
    clock += 5 * MIN;
    const viewed = (await call('GET', `sessions/${s.sessionId}`, s.token)).body as {
      progress: { items: { id: string; skipped?: boolean }[] };
    };
    expect(viewed.progress.items.find((i) => i.id === 'g')?.skipped).toBe(true);
    const refused = await call('POST', `sessions/${s.sessionId}/runs`, s.token, { item: 'g' });
    expect([refused.status, (refused.body as { error: string }).error]).toEqual([409, 'item_skipped']);
    // A client that starts it anyway is refused all the same, and the claim stays skipped.
    await send(
      [
        { kind: 'item.end', data: { item: 'intro' } },
        { kind: 'item.start', data: { item: 'g', kind: 'game' } },
      ],
      1,
    );
    const again = await call('POST', `sessions/${s.sessionId}/runs`, s.token, { item: 'g', lastSeq: 2 });
    expect([again.status, (again.body as { error: string }).error]).toEqual([409, 'item_skipped']);
    expect((await store.campaigns.sessionClaims(s.sessionId)).map((c) => c.state)).toEqual(['skipped']);
  });
});
