/**
 * The versions of a study's games in its export bundle, on the official engine in real Python
 * workers: a copy of the vendored ls20 is played by one participant, edited (its background
 * colour) and hot reloaded, then played by a second; a third run is stored with a version no
 * server kept. The bundle's `game-versions.json` says which version the study started with,
 * which one is mounted now, and every version the runs were opened on (whether its code is
 * kept); `game-runs.jsonl` gives each run's own version and its recording; every file of the
 * bundle validates against the bundle's own schema. Then `games verify-session` (and the replay
 * page's check on the server, with the same report) plays each run on the version it recorded,
 * names the version mounted now, and says why when it cannot.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Hono } from 'hono';
import type { ServerRunReply } from '../../core/game/serverGame';
import { versionedGameId } from '../../core/game';
import { parseCsvObjects } from '../../core/formats/csv';
import { games as builtInGames } from '../../games';
import { openStore } from '../store/open';
import { seedDataDir } from '../store/testing';
import type { Store } from '../store/types';
import { readGameFolder } from '../arc3/gameCode';
import { studioGames, type Arc3Started } from '../arc3/mount';
import { LS20, PYTHONPATH, arc3Api, editableGame } from '../testing/arc3';
import type { Arc3Action } from '../arc3/worker';
import { apiCaller } from '../testing/api';
import { runCli } from '../../cli/testing';
import { readZip } from './zip';
import { exportContext } from './context';
import { exportGameVersions } from './gameVersions';

const PUSH = versionedGameId(builtInGames.push);
const ADMIN = 'researcher-token-for-exported-versions';
const STUDY = {
  title: 'Versions exported',
  consent: 'Consent.',
  instructions: 'Play.',
  completion: { code: 'DONE' },
  items: [
    { kind: 'game', id: 'keys', game: LS20 },
    { kind: 'game', id: 'boxes', game: 'push' },
  ],
};
const MOVES: Arc3Action['action'][] = ['ACTION1', 'ACTION3', 'ACTION2'];
/** A code hash no server of the database kept. */
const LOST = 'abcdef012345';

/** Which schema each file of the bundle is checked against, and how its records are read. */
function schemaFor(name: string): { schema: string; records: 'json' | 'jsonl' | 'csv' } | null {
  if (name.startsWith('recordings/')) return { schema: 'recording', records: 'jsonl' };
  const files: Record<string, { schema: string; records: 'json' | 'jsonl' | 'csv' }> = {
    'events.jsonl': { schema: 'events', records: 'jsonl' },
    'attempts.csv': { schema: 'attempts', records: 'csv' },
    'grid-actions.csv': { schema: 'grid-actions', records: 'csv' },
    'baselines.json': { schema: 'baselines', records: 'json' },
    'baselines.csv': { schema: 'baselines-csv', records: 'csv' },
    'grades.csv': { schema: 'grades', records: 'csv' },
    'responses.csv': { schema: 'responses', records: 'csv' },
    'surveys.json': { schema: 'surveys', records: 'json' },
    'game-versions.json': { schema: 'game-versions', records: 'json' },
    'game-runs.jsonl': { schema: 'game-runs', records: 'jsonl' },
    'campaign.json': { schema: 'campaign-view', records: 'json' },
    'campaign.csv': { schema: 'campaign', records: 'csv' },
  };
  return files[name] ?? null;
}

describe('the versions of an edited arcengine game in the export bundle', () => {
  let root: string;
  let dataDir: string;
  let gameDir: string;
  let store: Store;
  let arc3: Arc3Started;
  let app: Hono;
  const call = apiCaller(() => app);
  let before: string;
  let after: string;
  const sessions: string[] = [];
  const runs: string[] = [];

  /** A session of participant `pid` that opens a run of ls20 and plays `moves` in it; its run id. */
  const play = async (pid: string, moves: readonly Arc3Action['action'][]) => {
    const s = (await call('POST', 'studies/versions/sessions', null, { params: { PROLIFIC_PID: pid } })).body as {
      sessionId: string;
      token: string;
    };
    sessions.push(s.sessionId);
    const opened = await call('POST', `sessions/${s.sessionId}/runs`, s.token, { item: 'keys' });
    expect(opened.status, JSON.stringify(opened.body)).toBe(200);
    const run = opened.body as ServerRunReply;
    for (const [i, action] of moves.entries()) {
      const r = await call('POST', `sessions/${s.sessionId}/runs/${run.run}/actions`, s.token, { step: i + 1, action });
      expect(r.status, JSON.stringify(r.body)).toBe(200);
    }
    // Answered before stored: the steps land before the item's end.
    await arc3.service.stepsStored();
    const events = [
      { seq: 0, t: 5, kind: 'session.start', data: { wallClock: '2026-02-01T09:00:00.000Z' } },
      { seq: 1, t: 10, kind: 'item.start', data: { item: 'keys', kind: 'game' } },
      {
        seq: 2,
        t: 20,
        kind: 'game.open',
        data: { game: LS20, seed: 0, run: run.run, source: 'arcengine', version: run.game.version },
      },
    ];
    expect((await call('POST', `sessions/${s.sessionId}/events`, s.token, { events })).status).toBe(200);
    runs.push(run.run);
    return run.run;
  };

  beforeAll(async () => {
    root = mkdtempSync(path.join(tmpdir(), 'arc3-exported-versions-'));
    gameDir = editableGame(root, 'ls20/9607627b');
    dataDir = path.join(root, 'data');
    seedDataDir(dataDir);
    store = await openStore({ dataDir });
    await store.saveStudy('versions', STUDY, 'file', Date.now());
    const games = [path.join(root, 'games')];
    ({ app, arc3 } = await arc3Api(store, { admin: ADMIN, dirs: games, codeDir: path.join(dataDir, 'arc3-code') }));
    before = (await readGameFolder(gameDir)).hash;
    await play('p1', MOVES);
    // The designer changes the background colour; the game is reloaded.
    const file = path.join(gameDir, 'ls20.py');
    const text = readFileSync(file, 'utf8');
    expect(text).toContain('BACKGROUND_COLOR = 3\n');
    writeFileSync(file, text.replace('BACKGROUND_COLOR = 3\n', 'BACKGROUND_COLOR = 5\n'));
    await arc3.service.reload(LS20);
    after = (await readGameFolder(gameDir)).hash;
    expect(after).not.toBe(before);
    await play('p2', MOVES.slice(0, 2));
    // A run stored with a version whose files no server of this database kept (its steps are the last run's).
    const last = (await store.getGameRun(runs[1]))!;
    const lost = `${last.runId.slice(0, -4)}ffff`;
    await store.addGameRun({ ...last, runId: lost, codeHash: LOST, openedAt: last.openedAt + 1 });
    for (const s of await store.readGameSteps(last.runId)) await store.addGameStep({ ...s, runId: lost });
    runs.push(lost);
  });
  afterAll(async () => {
    await arc3?.service.stop();
    await store?.close().catch(() => undefined);
    rmSync(root, { recursive: true, force: true });
  });

  const bundle = async (version?: number) => {
    const made = await call(
      'POST',
      'admin/studies/versions/exports',
      ADMIN,
      version === undefined ? { format: 'zip' } : { format: 'zip', version },
    );
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    const res = await app.request((made.body as { url: string }).url.replace(/^\/api/, ''));
    expect(res.status).toBe(200);
    return new Map(readZip(Buffer.from(await res.arrayBuffer())).map((e) => [e.name, e.data.toString('utf8')]));
  };

  it('names the starting, mounted and recorded versions, and every file validates against its schema', async () => {
    const files = await bundle();
    const versions = JSON.parse(files.get('game-versions.json')!) as Record<string, unknown>;
    const opened = await Promise.all(runs.map(async (id) => (await store.getGameRun(id))!.openedAt));
    expect(versions).toEqual({
      format: 'arc-studio.game-versions',
      formatVersion: 1,
      studyId: 'versions',
      studyVersion: null,
      // Both games pinned by the first session, before the edit; ls20 has changed since.
      startedWith: [
        {
          gameId: LS20,
          version: `${LS20}@${before}`,
          codeHash: before,
          sessionId: sessions[0],
          pinnedAt: expect.any(Number),
          current: `${LS20}@${after}`,
          changed: true,
        },
        {
          gameId: 'push',
          version: PUSH,
          codeHash: null,
          sessionId: sessions[0],
          pinnedAt: expect.any(Number),
          current: PUSH,
          changed: false,
        },
      ],
      versions: [
        {
          gameId: LS20,
          version: `${LS20}@${before}`,
          codeHash: before,
          runs: 1,
          firstOpenedAt: opened[0],
          lastOpenedAt: opened[0],
          startedWith: true,
          current: false,
          codeKept: true,
        },
        {
          gameId: LS20,
          version: `${LS20}@${after}`,
          codeHash: after,
          runs: 1,
          firstOpenedAt: opened[1],
          lastOpenedAt: opened[1],
          startedWith: false,
          current: true,
          codeKept: true,
        },
        {
          gameId: LS20,
          version: `${LS20}@${LOST}`,
          codeHash: LOST,
          runs: 1,
          firstOpenedAt: opened[2],
          lastOpenedAt: opened[2],
          startedWith: false,
          current: false,
          codeKept: false,
        },
      ],
    });

    const lines = files
      .get('game-runs.jsonl')!
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines.map((l) => [l.sessionId, l.runId, l.run, l.version, l.codeHash, l.recording])).toEqual([
      [sessions[0], runs[0], 1, `${LS20}@${before}`, before, `${sessions[0]}-keys-1.recording.jsonl`],
      [sessions[1], runs[1], 1, `${LS20}@${after}`, after, `${sessions[1]}-keys-1.recording.jsonl`],
      [sessions[1], runs[2], 2, `${LS20}@${LOST}`, LOST, `${sessions[1]}-keys-2.recording.jsonl`],
    ]);
    expect(lines[0]).toMatchObject({
      studyVersion: 1,
      item: 'keys',
      gameId: LS20,
      source: 'arcengine',
      engine: expect.stringMatching(/^arcengine /),
      seed: 0,
      openedAt: opened[0],
      practice: false,
      playtest: false,
      excluded: false,
      stage: 'main',
    });
    // Each run's recording is in the bundle, and its frames are of the run's own version: the
    // first frames of the runs before and after the edit differ.
    for (const l of lines) expect(files.has(`recordings/${l.recording as string}`), l.recording as string).toBe(true);
    const firstFrame = (name: string) =>
      JSON.stringify(
        (JSON.parse(files.get(`recordings/${name}`)!.split('\n')[0]) as { data: { frame: unknown } }).data.frame,
      );
    expect(firstFrame(lines[0].recording as string)).not.toBe(firstFrame(lines[1].recording as string));

    // Every record of every file validates against the bundle's own schema for it.
    const ajv = new Ajv2020({ strict: false });
    let checked = 0;
    for (const [name, text] of files) {
      if (name.startsWith('schemas/') || name === 'README.md' || name === 'SHA256SUMS') continue;
      const spec = schemaFor(name);
      expect(spec, `${name} has a schema`).not.toBeNull();
      const validate =
        ajv.getSchema(`https://arc-studio.dev/schemas/${spec!.schema}.schema.json`) ??
        ajv.compile(JSON.parse(files.get(`schemas/${spec!.schema}.schema.json`)!));
      const records =
        spec!.records === 'json'
          ? [JSON.parse(text) as unknown]
          : spec!.records === 'jsonl'
            ? text
                .trimEnd()
                .split('\n')
                .filter(Boolean)
                .map((l) => JSON.parse(l) as unknown)
            : parseCsvObjects(text);
      for (const [i, r] of records.entries()) {
        expect(validate(r) ? null : validate.errors, `${name} record ${i + 1}`).toBeNull();
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(20);
    // The README says what the two files are.
    expect(files.get('README.md')).toContain('| `game-versions.json` |');
    expect(files.get('README.md')).toContain('| `game-runs.jsonl` |');
    // It names what changed: the game's mounted version, and the version whose code is gone.
    expect(files.get('README.md')).toContain(
      [
        '## Game versions',
        '',
        'A game keeps its id when its code changes; `game-versions.json` and `game-runs.jsonl` say which code each run played. Of note:',
        '',
        `- \`${LS20}\`: the study started with \`${LS20}@${before}\`; the exporting server mounts \`${LS20}@${after}\`.`,
        `- \`${LS20}@${LOST}\`: 1 run played on code this database no longer keeps; \`arc-studio games verify-session\` can play it again only with the game's files put back as they were (their hash must be \`${LOST}\`).`,
        '',
      ].join('\n'),
    );

    // Made on its own (not after the runs' file, as in the bundle), the same document.
    const ctx = await exportContext({
      store,
      studyId: 'versions',
      library: null,
      replay: null,
      games: studioGames(arc3).gameInfo(),
      now: Date.now(),
    });
    expect(await exportGameVersions(ctx)).toEqual(versions);

    // One study version: the same (every session ran version 1).
    expect(JSON.parse((await bundle(1)).get('game-versions.json')!)).toEqual({ ...versions, studyVersion: 1 });
  });

  it('games verify-session plays each run on the version it recorded, and says why when it cannot', async () => {
    // A run stored before versions were kept (no code hash) that played the code before the edit.
    const first = (await store.getGameRun(runs[0]))!;
    const old = `${first.runId.slice(0, -4)}eeee`;
    await store.addGameRun({ ...first, runId: old, codeHash: null, openedAt: first.openedAt + 1 });
    for (const s of await store.readGameSteps(first.runId)) await store.addGameStep({ ...s, runId: old });
    // The replay page's "Verify with the engine": the same report, from the server's own check.
    const serverReport = async (sessionId: string) => {
      const started = await call('POST', `admin/sessions/${sessionId}/runs/verify`, ADMIN, {});
      expect(started.status, JSON.stringify(started.body)).toBe(202);
      const url = `admin/sessions/${sessionId}/runs/verify/${(started.body as { job: string }).job}`;
      await expect
        .poll(async () => ((await call('GET', url, ADMIN)).body as { state: string }).state, { timeout: 180_000 })
        .toBe('done');
      return ((await call('GET', url, ADMIN)).body as { report: string[] }).report;
    };
    const onServer = [await serverReport(sessions[0]), await serverReport(sessions[1])];
    await arc3.service.stop();
    await store.close();
    const verify = async (sessionId: string, ...flags: string[]) => {
      const r = await runCli(
        [
          'games',
          'verify-session',
          sessionId,
          '--data-dir',
          dataDir,
          '--arc3-games',
          path.join(root, 'games'),
          ...flags,
        ],
        { ARC_STUDIO_PYTHONPATH: PYTHONPATH, DATABASE_URL: undefined },
      );
      expect(r.err).toBe('');
      return r;
    };
    const started = `the study started with ${LS20}@${before}`;

    // The first participant's run played its kept code, though the mounted folder holds the edited
    // one; the run without a version was played on the edited code and says so beside its differences.
    const one = await verify(sessions[0]);
    const lines = one.out.trimEnd().split('\n');
    expect(lines[0]).toBe(
      `keys ${LS20}@${before} run ${runs[0]} (seed 0, 4 steps, mounted now ${LS20}@${after}): every step matches`,
    );
    expect(lines[1]).toBe(
      `keys ${LS20} run ${old} (seed 0, 4 steps, ${started}): 4 steps differ; the run recorded no code version (stored before versions were kept), so it was played on the mounted ${LS20}@${after}; if the game's files changed since it was played, exact verification needs the code it ran on`,
    );
    expect(lines.slice(2)).toHaveLength(4);
    expect(one.code).toBe(1);
    expect(onServer[0]).toEqual(lines);

    // The second participant's run matches on the mounted code; the run whose code no server kept
    // is not played: the check names the recorded and the mounted versions and what to do.
    const two = await verify(sessions[1]);
    expect(two.out.trimEnd().split('\n')).toEqual([
      `keys ${LS20}@${after} run ${runs[1]} (seed 0, 3 steps, ${started}): every step matches`,
      `keys ${LS20}@${LOST} run ${runs[2]} (seed 0, 3 steps, ${started}): not checked: recorded with ${LS20}@${LOST}; mounted now: ${LS20}@${after}; exact verification needs the recorded code: no server of this database kept that version; put the game's files back as they were when the run was played (their hash must be ${LOST}) and run the check again`,
    ]);
    expect(two.code).toBe(1);
    expect(onServer[1]).toEqual(two.out.trimEnd().split('\n'));
    const json = JSON.parse((await verify(sessions[1], '--json')).out) as {
      ok: boolean;
      runs: Record<string, unknown>[];
    };
    expect(json.ok).toBe(false);
    expect(json.runs.map((r) => [r.version, r.mounted, r.unplayed ?? false])).toEqual([
      [`${LS20}@${after}`, `${LS20}@${after}`, false],
      [`${LS20}@${LOST}`, `${LS20}@${after}`, true],
    ]);
  }, 240_000);
});
