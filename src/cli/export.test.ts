import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApi } from '../server/app';
import { TaskLibrary } from '../server/collections/collections';
import { hashToken } from '../server/people/auth';
import { gameIds, replayWithEngine } from '../server/study/studies';
import { openStore } from '../server/store/open';
import { readZip } from '../server/export/zip';
import { createRun, gameActionData, parseActions, step } from '../core/game';
import { readRecording } from '../core/formats/recording';
import { parseCsvObjects } from '../core/formats/csv';
import { RESPONSES_COLUMNS } from '../server/export/responses';
import { parseBaselines } from '../core/scoring/baselines';
import { games, solutions } from '../games';
import { seedDataDir } from '../server/store/testing';
import { runCli, spawnCli } from './testing';

const ROOT = path.resolve(__dirname, '../..');
const dir = mkdtempSync(path.join(tmpdir(), 'arc-studio-export-'));
const dataDir = path.join(dir, 'data');
const ADMIN = 'researcher-token-for-cli-export-tests-0123';

/** `arc-studio export` in this process; the first export below runs the real binary. */
const cli = (...args: string[]) => runCli(['export', ...args], { DATABASE_URL: undefined });

const sessions: string[] = [];
let eventCount = 0;

beforeAll(async () => {
  // A study with two participants who play Push, stored in a PGlite data folder through the routes.
  seedDataDir(dataDir);
  const store = await openStore({ dataDir });
  try {
    const library = new TaskLibrary();
    await library.mount(path.join(ROOT, 'data/tasks/samples'));
    const app = createApi({
      library,
      version: 'test',
      study: { store, adminTokenHash: hashToken(ADMIN), replay: replayWithEngine, games: gameIds },
    });
    const req = async (url: string, token: string | null, body: unknown) => {
      const res = await app.request(url, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', ...(token ? { Authorization: `Bearer ${token}` } : {}) },
        body: JSON.stringify(body),
      });
      expect(res.status).toBeLessThan(300);
      return res.json() as Promise<Record<string, string>>;
    };
    await req('/admin/studies/cli', ADMIN, {
      definition: {
        title: 'CLI',
        consent: 'Yes.',
        items: [{ kind: 'game', id: 'push', game: 'push', seed: 1 }],
        completion: { code: 'C' },
      },
    });
    for (const [pid, actions] of [
      ['p1', `RESET,${solutions.push[0]}`],
      ['p2', 'RESET,ACTION1,ACTION2,ACTION4,ACTION4,ACTION4,ACTION4'],
    ]) {
      const s = await req('/studies/cli/sessions', null, { params: { PROLIFIC_PID: pid } });
      const events = [
        { seq: 0, t: 0, kind: 'session.start', data: { wallClock: '2026-02-01T09:00:00.000Z' } },
        { seq: 1, t: 5, kind: 'item.start', data: { item: 'push' } },
        { seq: 2, t: 10, kind: 'game.open', data: { game: 'push', seed: 1 } },
      ];
      let run = createRun(games.push, { seed: 1 });
      for (const input of parseActions(actions)) {
        const r = step(run, input);
        run = r.run;
        events.push({
          seq: events.length,
          t: events.length * 300,
          kind: 'game.action',
          data: gameActionData('push', input, r.response) as never,
        });
      }
      await req(`/sessions/${s.sessionId}/events`, s.token, { events });
      sessions.push(s.sessionId);
      eventCount += events.length;
    }
  } finally {
    await store.close();
  }
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('arc-studio export', () => {
  it('streams raw events, attempts and baselines (JSON or CSV) to files', async () => {
    const jsonl = path.join(dir, 'events.jsonl');
    const r = spawnCli(['export', '--study', 'cli', '--format', 'jsonl', '--out', jsonl, '--data-dir', dataDir], {
      DATABASE_URL: undefined,
    });
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    expect(r.out).toMatch(
      /^Exported jsonl of study "cli" \(2 sessions, from PGlite in .*\): \d+ bytes to .*events\.jsonl\.\n$/,
    );
    const lines = readFileSync(jsonl, 'utf8')
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.length).toBe(eventCount);
    expect(lines[0]).toMatchObject({
      sessionId: sessions[0],
      seq: 0,
      kind: 'session.start',
      practice: false,
      playtest: false,
    });

    const csv = path.join(dir, 'attempts.csv');
    expect(
      (await cli('--study', 'cli', '--format', 'csv', '--out', csv, '--data-dir', dataDir, '--version', '1')).code,
    ).toBe(0);
    expect(
      parseCsvObjects(readFileSync(csv, 'utf8')).map((row) => [row.participant_id, row.levels_completed, row.verified]),
    ).toEqual([
      ['p1', '1', 'true'],
      ['p2', '1', 'true'],
    ]);

    const bj = path.join(dir, 'baselines.json');
    const bc = path.join(dir, 'baselines.csv');
    expect((await cli('--study', 'cli', '--format', 'baselines', '--out', bj, '--data-dir', dataDir)).code).toBe(0);
    expect((await cli('--study', 'cli', '--format', 'baselines', '--out', bc, '--data-dir', dataDir)).code).toBe(0);
    expect(parseBaselines(readFileSync(bj, 'utf8')).games.push.levels[0]).toMatchObject({
      completers: 2,
      actions: [4, 6],
      baseline: { 'second-best': 6 },
    });
    expect(
      parseCsvObjects(readFileSync(bc, 'utf8'))
        .filter((row) => row.level === '1')
        .map((row) => `${row.preset}=${row.baseline}`),
    ).toEqual(['best=4', 'second-best=6', 'median=5', 'upper-median=6']);
    // A study of games only: responses.csv has its header and no rows.
    const responses = path.join(dir, 'responses.csv');
    expect((await cli('--study', 'cli', '--format', 'responses', '--out', responses, '--data-dir', dataDir)).code).toBe(
      0,
    );
    expect(readFileSync(responses, 'utf8')).toBe(`${RESPONSES_COLUMNS.join(',')}\r\n`);
    expect(readdirSync(dir).filter((f) => f.endsWith('.part'))).toEqual([]);
  });

  it('writes recordings to a folder and the bundle to a ZIP', async () => {
    const folder = path.join(dir, 'recs');
    const r = await cli('--study', 'cli', '--format', 'recordings', '--out', folder, '--data-dir', dataDir);
    expect(r.code).toBe(0);
    expect(r.out).toContain('2 recordings');
    expect(readdirSync(folder).sort()).toEqual(sessions.map((s) => `${s}-push-1.recording.jsonl`).sort());
    const read = readRecording(readFileSync(path.join(folder, `${sessions[0]}-push-1.recording.jsonl`), 'utf8'));
    expect(read.steps.map((s) => s.input.action).join(',')).toBe(`RESET,${solutions.push[0]}`);
    expect(read.steps[0].timestamp).toBe('2026-02-01T09:00:00.900000+00:00');

    // The exported recordings score against the study's own baselines, read from the same store.
    const rec = path.join(folder, `${sessions[0]}-push-1.recording.jsonl`);
    const scored = await runCli(
      ['score', rec, '--baselines', 'study:cli', '--data-dir', dataDir, '--preset', 'paper', '--json'],
      { DATABASE_URL: '' },
    );
    expect(scored.err).toBe('');
    const report = JSON.parse(scored.out) as {
      baselines: string;
      result: {
        games: {
          game: string;
          runs: { levels: { level: number; human: { value: number | null }; agentActions: number | null }[] }[];
        }[];
      };
    };
    expect(report.baselines).toBe('study:cli');
    const level1 = report.result.games[0].runs[0].levels[0];
    expect(level1.agentActions).toBe(solutions.push[0].split(',').length);
    // Paper preset: the second-fewest actions of the two participants (4 and 6).
    expect(level1.human.value).toBe(6);

    const zip = path.join(dir, 'bundle.zip');
    expect((await cli('--study', 'cli', '--format', 'zip', '--out', zip, '--data-dir', dataDir)).code).toBe(0);
    const names = readZip(readFileSync(zip)).map((e) => e.name);
    expect(names).toContain('SHA256SUMS');
    expect(names.filter((n) => n.startsWith('recordings/')).length).toBe(2);
  });

  it('says what is wrong with a study id, a format, a version, a path or a data folder', async () => {
    const wrongStudy = await cli(
      '--study',
      'nope',
      '--format',
      'jsonl',
      '--out',
      path.join(dir, 'x.jsonl'),
      '--data-dir',
      dataDir,
    );
    expect(wrongStudy.code).toBe(1);
    expect(wrongStudy.err).toBe('arc-studio export: No study "nope". Studies: cli.\n');
    const wrongFormat = await cli(
      '--study',
      'cli',
      '--format',
      'xlsx',
      '--out',
      path.join(dir, 'x.xlsx'),
      '--data-dir',
      dataDir,
    );
    expect(wrongFormat.err).toBe(
      'arc-studio export: unknown format "xlsx"; formats: jsonl, csv, baselines, grid-actions, grades, responses, surveys, recordings, zip, archive.\n',
    );
    expect(
      (
        await cli(
          '--study',
          'cli',
          '--format',
          'csv',
          '--out',
          path.join(dir, 'x.csv'),
          '--data-dir',
          dataDir,
          '--version',
          '3',
        )
      ).err,
    ).toMatch(/has no version 3; its versions are 1/);
    const badPath = await cli(
      '--study',
      'cli',
      '--format',
      'csv',
      '--out',
      path.join(dir, 'missing', 'x.csv'),
      '--data-dir',
      dataDir,
    );
    expect(badPath.code).toBe(1);
    expect(badPath.err).toMatch(/cannot write .*x\.csv: the folder .*missing does not exist/);
    const noData = await cli(
      '--study',
      'cli',
      '--format',
      'csv',
      '--out',
      path.join(dir, 'y.csv'),
      '--data-dir',
      path.join(dir, 'elsewhere'),
    );
    expect(noData.err).toMatch(/no database in .*elsewhere.db: give the --data-dir that "arc-studio serve" uses/);
    expect((await cli('--format', 'csv')).err).toMatch(/--study is missing/);
  });
});
