/**
 * The researcher's outputs of a server-run ARC-AGI-3 game, made from its stored steps, on the
 * official engine and toolkit (../shared/vendor/arc-agi-3) and both databases: the exported
 * recording is, line for line, the file the toolkit writes for the same actions (but for its
 * timestamps and guid) and the toolkit's scorecard scores it as `arc-studio score` does; the
 * replay route sends every stored frame; the heatmap route finds a level's first frame; playing
 * the runs again on the engine finds every step the same, and finds a step whose stored frames
 * were changed, through the route and `arc-studio games verify-session`.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Hono } from 'hono';
import { decodeFrames, encodeFrames } from '../../core/formats/frames';
import type { ServerRunReply } from '../../core/game/serverGame';
import { gamesCommand } from '../../cli/games';
import { scoreFiles } from '../../cli/score';
import { exportContext } from '../export/context';
import { runRecordingLines, stepViewPages } from './storedRuns';
import { recordingEntries, type SkippedRun } from '../export/recordings';
import { exportSchemas } from '../export/schemas';
import { Ajv2020 } from 'ajv/dist/2020';
import { openStore } from '../store/open';
import { backends, seedDataDir } from '../store/testing';
import type { Store } from '../store/types';
import { ARC3_ENV as ENV, OFFICIAL_GAMES as GAMES, PYTHONPATH, VC33, VENDOR, arc3Api } from '../testing/arc3';
import type { Arc3Started } from './mount';
import { readGameFolder } from './gameCode';
import { decodeStoredSteps } from './steps';

const ROOT = path.resolve(__dirname, '../../..');
const METADATA = path.join(GAMES, 'vc33/5430563c/metadata.json');
const ADMIN = 'researcher-token-for-stored-runs';

/**
 * vc33: level 1 solved in three clicks, a wasted click, a level reset, two clicks into level 2,
 * then two actions vc33 does not offer (its only action is ACTION6), sent through the API as an
 * agent might: the engine performs them and the scorecard counts them, here as in the toolkit.
 */
const ACTIONS: { action: string; x?: number; y?: number }[] = [
  { action: 'ACTION6', x: 60, y: 32 },
  { action: 'ACTION6', x: 60, y: 32 },
  { action: 'ACTION6', x: 60, y: 32 },
  { action: 'ACTION6', x: 10, y: 60 },
  { action: 'RESET' },
  { action: 'ACTION6', x: 0, y: 24 },
  { action: 'ACTION6', x: 0, y: 24 },
  { action: 'ACTION1' },
  { action: 'ACTION5' },
];

const STUDY = {
  title: 'Stored runs',
  consent: 'Consent.',
  instructions: 'Play.',
  completion: { code: 'DONE' },
  items: [{ kind: 'game', id: 'clicks', game: VC33 }],
};

/** The recording the official toolkit itself writes for ACTIONS (Arcade, OFFLINE, recordings on). */
function toolkitRecording(): string {
  const script = `
import json, logging, os, sys, tempfile
logging.disable(logging.CRITICAL)
from arc_agi import Arcade, OperationMode
from arcengine import GameAction
out = tempfile.mkdtemp()
arcade = Arcade(operation_mode=OperationMode.OFFLINE, environments_dir=sys.argv[1], recordings_dir=out)
env = arcade.make(sys.argv[2], scorecard_id=arcade.open_scorecard(), save_recording=True)
for a in json.loads(sys.argv[3]):
    env.step(GameAction[a['action']], {'x': a['x'], 'y': a['y']} if 'x' in a else {})
files = [os.path.join(d, f) for d, _, fs in os.walk(out) for f in fs]
sys.stdout.write(open(files[0]).read())
`;
  const r = spawnSync('python3', ['-c', script, GAMES, VC33, JSON.stringify(ACTIONS)], {
    encoding: 'utf8',
    env: { ...process.env, PYTHONPATH, PYTHONDONTWRITEBYTECODE: '1' },
    maxBuffer: 64 << 20,
    timeout: 180_000,
  });
  expect(r.stderr).toBe('');
  expect(r.status).toBe(0);
  return r.stdout;
}

/** A line with its timestamp and guid blanked: what must be the same in both files. */
const comparable = (line: string) =>
  line.replace(/^\{"timestamp": "[^"]+"/, '{"timestamp": ""').replace(/"guid": "[^"]+"/, '"guid": ""');

let official: string;
beforeAll(() => {
  official = toolkitRecording();
});

for (const backend of backends) {
  describe(`stored runs of server-run games on ${backend.name}`, () => {
    let store: Store;
    let arc3: Arc3Started;
    let app: Hono;
    let sessionId: string;
    let token: string;
    let runId: string;

    const call = async (method: string, url: string, auth: string | null, body?: unknown) => {
      const headers: Record<string, string> = { 'Content-Type': 'application/json' };
      if (auth) headers.Authorization = `Bearer ${auth}`;
      const res = await app.request(url, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return { status: res.status, json: (await res.json()) as Record<string, unknown> };
    };

    beforeAll(async () => {
      store = await backend.open();
      await store.saveStudy('runs', STUDY, 'file', Date.now());
      ({ app, arc3 } = await arc3Api(store, { admin: ADMIN }));
      const s = await call('POST', '/studies/runs/sessions', null, { params: {} });
      ({ sessionId, token } = s.json as { sessionId: string; token: string });
      const opened = (await call('POST', `/sessions/${sessionId}/runs`, token, { item: 'clicks' }))
        .json as unknown as ServerRunReply;
      runId = opened.run;
      for (const [i, a] of ACTIONS.entries()) {
        const r = await call('POST', `/sessions/${sessionId}/runs/${runId}/actions`, token, { step: i + 1, ...a });
        expect(r.status).toBe(200);
      }
      // Answered before stored: the tests below read the stored steps.
      await arc3.service.stepsStored();
    });
    afterAll(async () => {
      await arc3?.service.stop();
      await store.close();
    });

    it("exports the run as the toolkit's own recording, which the toolkit scores as arc-studio does", async () => {
      const ctx = await exportContext({ store, studyId: 'runs', library: null, replay: null, now: Date.now() });
      const skipped: SkippedRun[] = [];
      const files: { name: string; text: string }[] = [];
      for await (const entry of recordingEntries(ctx, skipped)) {
        let text = '';
        for await (const chunk of entry.data) text += typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString();
        files.push({ name: entry.name, text });
      }
      expect(skipped).toEqual([]);
      expect(files.map((f) => f.name)).toEqual([`${sessionId}-clicks-1.recording.jsonl`]);
      const ours = files[0].text.trimEnd().split('\n');
      const theirs = official.trimEnd().split('\n');
      expect(ours).toHaveLength(ACTIONS.length + 1);
      expect(theirs).toHaveLength(ACTIONS.length + 1);
      // Read a few steps a page (a step stored against the one before crossing a page's edge): the same lines as in one page.
      const [run] = await store.listGameRuns(sessionId);
      for (const size of [1, 2, 3])
        expect((await runRecordingLines(store, run, size)).join('\n')).toBe(ours.join('\n'));
      // The bundle's schema accepts every line of ours and every line the toolkit itself writes.
      const validate = new Ajv2020({ strict: false }).compile(exportSchemas()['recording.schema.json']);
      for (const [who, lines] of [
        ['ours', ours],
        ["the toolkit's", theirs],
      ] as const) {
        lines.forEach((line, i) =>
          expect(validate(JSON.parse(line)) ? null : validate.errors, `${who} line ${i + 1}`).toBeNull(),
        );
      }
      ours.forEach((line, i) => {
        const a = JSON.parse(line) as { timestamp: string; data: Record<string, unknown> };
        const b = JSON.parse(theirs[i]) as { timestamp: string; data: Record<string, unknown> };
        // Field by field first (a failure names the field), then the text itself.
        for (const key of Object.keys(b.data))
          if (key !== 'guid') expect(a.data[key], `line ${i + 1} ${key}`).toEqual(b.data[key]);
        expect(Object.keys(a.data)).toEqual(Object.keys(b.data));
        expect(a.data.guid).toBe(runId);
        expect(a.timestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{6})?\+00:00$/);
        expect(comparable(line)).toBe(comparable(theirs[i]));
      });
      const first = JSON.parse(ours[0]) as {
        data: { action_input: unknown; full_reset: boolean; levels_completed: number };
      };
      expect(first.data).toMatchObject({ action_input: { id: 'RESET', data: {}, reasoning: null }, full_reset: true });
      expect((JSON.parse(ours[3]) as { data: { levels_completed: number } }).data.levels_completed).toBe(1);

      // The toolkit's scorecard, handed each line as its wrapper would, against arc-studio score.
      const dir = mkdtempSync(path.join(tmpdir(), 'arc3-rec-'));
      try {
        const file = path.join(dir, files[0].name);
        writeFileSync(file, files[0].text);
        const r = spawnSync(
          'python3',
          [path.join(ROOT, 'src/core/scoring/fixtures/official_score.py'), VENDOR, 'lines', METADATA, file],
          {
            encoding: 'utf8',
            timeout: 180_000,
            env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1' },
          },
        );
        expect(r.stderr).toBe('');
        const card = JSON.parse(r.stdout) as {
          score: number;
          environments: {
            id: string;
            score: number;
            runs: { score: number; level_actions: number[]; level_scores: number[]; levels_completed: number }[];
          }[];
        };
        const mine = scoreFiles([file], METADATA, 'toolkit-2026-04').result;
        expect(card.environments.map((e) => e.id)).toEqual([VC33]);
        expect(mine.games.map((g) => g.game)).toEqual([VC33]);
        expect(card.score).toBeGreaterThan(0);
        expect(mine.total).toBeCloseTo(card.score / 100, 12);
        const [run] = card.environments[0].runs;
        expect(mine.games[0].runs).toHaveLength(1);
        expect(mine.games[0].runs[0].score).toBeCloseTo(run.score / 100, 12);
        expect(run.levels_completed).toBe(1);
        expect(mine.games[0].runs[0].levels.filter((l) => l.completed).map((l) => l.agentActions)).toEqual(
          run.level_actions.slice(0, 1),
        );
        expect(mine.games[0].runs[0].levels.slice(0, run.level_scores.length).map((l) => (l.score ?? 0) * 100)).toEqual(
          run.level_scores.map((x) => expect.closeTo(x, 9)),
        );
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });

    it("sends the replay every stored step with its frames, and the heatmap a level's first frame", async () => {
      expect((await call('GET', `/admin/sessions/${sessionId}/runs`, token)).status).toBe(403);
      const r = await call('GET', `/admin/sessions/${sessionId}/runs`, ADMIN);
      expect(r.status).toBe(200);
      const runs = r.json.runs as {
        runId: string;
        gameId: string;
        item: string;
        steps: {
          step: number;
          action: string;
          x: number | null;
          frames: string;
          levelsCompleted: number;
          frameHash: string;
        }[];
      }[];
      expect(runs.map((x) => [x.runId, x.gameId, x.item])).toEqual([[runId, VC33, 'clicks']]);
      const stored = decodeStoredSteps(await store.readGameSteps(runId));
      expect(runs[0].steps.map((s) => s.action)).toEqual(['RESET', ...ACTIONS.map((a) => a.action)]);
      runs[0].steps.forEach((s, i) => expect(decodeFrames(s.frames)).toEqual(stored[i].frames));
      // Read a page of 2 steps at a time (each page decoded from the one before's last frame):
      // every step once, in order, the same frames.
      const pages = [];
      for await (const page of stepViewPages(store, runId, 2)) pages.push(page);
      expect(pages.map((p) => p.length)).toEqual([
        ...Array(Math.floor(stored.length / 2)).fill(2),
        ...(stored.length % 2 ? [1] : []),
      ]);
      expect(pages.flat()).toEqual(runs[0].steps);
      expect((await call('GET', '/admin/sessions/nope/runs', ADMIN)).status).toBe(404);

      const level1 = await call('GET', `/admin/studies/runs/games/${VC33}/levels/1/frame`, ADMIN);
      expect(level1.status).toBe(200);
      expect(level1.json.step).toBe(3);
      expect(decodeFrames(level1.json.frames as string)).toEqual([stored[3].last]);
      const level0 = await call('GET', `/admin/studies/runs/games/${VC33}/levels/0/frame`, ADMIN);
      expect(decodeFrames(level0.json.frames as string)).toEqual([stored[0].last]);
      const level5 = await call('GET', `/admin/studies/runs/games/${VC33}/levels/5/frame`, ADMIN);
      expect(level5.status).toBe(404);
      expect(level5.json.message).toMatch(/reached level 6/);
    });

    it('plays the runs again on the engine: all steps match, and a changed stored frame is found', async () => {
      // A copy of the run whose step 2 says one cell other than the engine showed.
      const steps = await store.readGameSteps(runId);
      const decoded = decodeStoredSteps(steps);
      const forged = '00000000-0000-4000-8000-' + runId.slice(-12);
      const run = (await store.getGameRun(runId))!;
      await store.addGameRun({ ...run, runId: forged, openedAt: run.openedAt + 1 });
      for (const [i, s] of steps.entries()) {
        const frames = decoded[i].frames.map((f) => f.map((row) => [...row]));
        if (s.step === 2) frames[frames.length - 1][5][7] = (frames[frames.length - 1][5][7] + 1) % 16;
        await store.addGameStep({ ...s, runId: forged, frames: encodeFrames(frames, null), keyframe: true });
      }
      const started = await call('POST', `/admin/sessions/${sessionId}/runs/verify`, ADMIN);
      expect(started.status).toBe(202);
      let job = started.json;
      // The check runs the engine in a worker process: on a busy machine that takes a while.
      await expect
        .poll(
          async () => {
            job = (await call('GET', `/admin/sessions/${sessionId}/runs/verify/${String(started.json.job)}`, ADMIN))
              .json;
            return job.state;
          },
          { timeout: 180_000 },
        )
        .not.toBe('running');
      expect(job.state).toBe('done');
      const check = job.check as {
        ok: boolean;
        runs: { runId: string; error?: string; differences: { step: number; what: string[] }[] }[];
      };
      expect(check.ok).toBe(false);
      expect(check.runs.map((x) => [x.runId, x.error, x.differences.map((d) => d.step)])).toEqual([
        [runId, undefined, []],
        [forged, undefined, [2]],
      ]);
      expect(check.runs[1].differences[0].what.join(' ')).toMatch(/1 cell differs, first at \(x 7, y 5\)/);
      expect((job.report as string[]).join('\n')).toMatch(/step 2 \(ACTION6\): frame \d+ of \d+: 1 cell differs/);
    });

    if (backend.name === 'pglite') {
      it('arc-studio games verify-session reports the same and exits 1, then 0 for a session whose runs all match', async () => {
        const dir = mkdtempSync(path.join(tmpdir(), 'arc3-verify-'));
        try {
          seedDataDir(dir);
          const cli = await openStore({ dataDir: dir });
          await cli.saveStudy('runs', STUDY, 'file', Date.now());
          const copy = async (id: string, runs: string[]) => {
            const s = (await store.getSession(sessionId))!;
            await cli.createSession({
              id,
              studyId: s.studyId,
              studyVersion: s.studyVersion,
              tokenHash: `${id}-h`,
              params: {},
              seed: 0,
              order: [0],
              createdAt: s.createdAt,
            });
            for (const r of runs) {
              const run = (await store.getGameRun(r))!;
              await cli.addGameRun({ ...run, sessionId: id });
              for (const step of await store.readGameSteps(r)) await cli.addGameStep(step);
            }
          };
          const all = (await store.listGameRuns(sessionId)).map((r) => r.runId);
          await copy('good', [runId]);
          await copy(
            'bad',
            all.filter((r) => r !== runId),
          );
          await cli.close();
          const run = (id: string) =>
            spawnSync(
              'node',
              [
                path.join(ROOT, 'bin/arc-studio.mjs'),
                'games',
                'verify-session',
                id,
                '--data-dir',
                dir,
                '--arc3-games',
                GAMES,
              ],
              {
                encoding: 'utf8',
                timeout: 180_000,
                env: { ...ENV, DATABASE_URL: '' },
              },
            );
          // The command itself, end to end, on the session with the changed step.
          const bad = run('bad');
          expect(bad.stderr).toBe('');
          expect(bad.status).toBe(1);
          expect(bad.stdout).toMatch(new RegExp(`\\(seed 0, ${ACTIONS.length + 1} steps\\): 1 step differs`));
          expect(bad.stdout).toMatch(/ {2}step 2 \(ACTION6\): frame \d+ of \d+: 1 cell differs, first at \(x 7, y 5\)/);
          // In process (a second start of the command costs seconds), on the session whose run matches.
          const printed: string[] = [];
          const log = vi.spyOn(console, 'log').mockImplementation((text: string) => {
            printed.push(text);
          });
          const before = process.env.ARC_STUDIO_PYTHONPATH;
          process.env.ARC_STUDIO_PYTHONPATH = PYTHONPATH;
          let code: number;
          try {
            code = await gamesCommand.run(['verify-session', 'good', '--data-dir', dir, '--arc3-games', GAMES]);
          } finally {
            log.mockRestore();
            if (before === undefined) delete process.env.ARC_STUDIO_PYTHONPATH;
            else process.env.ARC_STUDIO_PYTHONPATH = before;
          }
          expect(code).toBe(0);
          // The run names the version it was recorded with: the id and the hash of the game's files.
          const version = `${VC33}@${(await readGameFolder(path.join(GAMES, 'vc33/5430563c'))).hash}`;
          expect(printed).toEqual([
            `clicks ${version} run ${runId} (seed 0, ${ACTIONS.length + 1} steps): every step matches`,
          ]);
          expect(readdirSync(dir)).toContain('db');
        } finally {
          rmSync(dir, { recursive: true, force: true });
        }
      });
    }
  });
}
