import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Hono } from 'hono';
import { backends } from '../store/testing';
import type { Store } from '../store/types';
import { apiCaller } from '../testing/api';
import { readZip } from '../export/zip';
import { takePart } from '../testing/takePart';
import { SAMPLE_TASKS, oneTaskCampaign, sampleStudiesApi, taskAndGameStudy } from '../testing/sampleStudies';
import type { StudyResults } from '../../core/analysis/results';
import type { AuditEntry, StudyStages } from '../../core/protocol/api';
import type { CampaignView, PaymentsView } from '../../core/protocol/campaign';

const ADMIN = 'researcher-token-for-stages-0123456789';

describe.each(backends)('stages of a study on $name', (backend) => {
  let store: Store;
  let app: Hono;
  let clock = Date.UTC(2026, 6, 1);
  const call = apiCaller(() => app);

  beforeEach(async () => {
    store = await backend.open();
    const studies = { st: taskAndGameStudy('Stages', 'C-1'), camp: oneTaskCampaign('Staged campaign', 'C-2', 2) };
    ({ app } = await sampleStudiesApi(store, { admin: ADMIN, now: () => clock, studies }));
  });
  afterEach(async () => {
    await store.close();
  });

  const stage = async (study: string, name: string) => {
    clock += 1000;
    return call('PUT', `/admin/studies/${study}/stage`, ADMIN, { stage: name });
  };
  const results = async (query = '') => {
    const r = await call('GET', `/admin/studies/st/results${query}`, ADMIN);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    return r.body as StudyResults & { stages: StudyStages };
  };
  const part = async (study: string, pid: string) => {
    clock += 1000;
    return takePart(app, study, { PROLIFIC_PID: pid }, SAMPLE_TASKS);
  };

  it('starts a study in main, moves it by one action in the audit trail, and gives each session the stage it started in', async () => {
    expect((await call('GET', '/admin/studies/st', ADMIN)).body.stage).toBe('main');
    const before = await part('st', 'old');
    expect((await stage('st', 'pilot')).body).toEqual({ studyId: 'st', from: 'main', stage: 'pilot', changed: true });
    expect((await call('GET', '/admin/studies/st', ADMIN)).body.stage).toBe('pilot');
    // The same stage again changes nothing and records nothing.
    expect((await stage('st', 'pilot')).body).toMatchObject({ changed: false });
    const pilot = await part('st', 'pia');
    expect((await stage('st', 'main')).body).toMatchObject({ from: 'pilot', stage: 'main', changed: true });
    const main = await part('st', 'mo');

    const stageOf = async (s: { sessionId: string; token: string }) =>
      (await call('GET', `/sessions/${s.sessionId}`, s.token)).body.session.stage as string;
    expect([await stageOf(before), await stageOf(pilot), await stageOf(main)]).toEqual(['main', 'pilot', 'main']);

    const audit = (await call('GET', '/admin/studies/st/audit', ADMIN)).body.events as AuditEntry[];
    expect(
      audit.filter((e) => e.action === 'study.stage').map((e) => [e.actor, e.target, e.detail.from, e.detail.to]),
    ).toEqual([
      ['researcher', 'st', 'pilot', 'main'],
      ['researcher', 'st', 'main', 'pilot'],
    ]);

    for (const bad of ['all', 'Main', '', '1st', 'a'.repeat(33)]) {
      const r = await stage('st', bad);
      expect(r.status, bad).toBe(400);
      expect(r.body.message).toMatch(/stage/);
    }
    expect((await call('PUT', '/admin/studies/nope/stage', ADMIN, { stage: 'main' })).status).toBe(404);
    // A participant's token opens no researcher's route.
    expect((await call('PUT', '/admin/studies/st/stage', main.token, { stage: 'main' })).status).toBe(403);
  });

  it('leaves pilot sessions out of every count of the results, surveys and baselines by default, and counts them when asked', async () => {
    await stage('st', 'pilot');
    await part('st', 'pia');
    await part('st', 'pip');
    await stage('st', 'main');
    await part('st', 'mo');

    const main = await results();
    expect(main.study.stage).toBe('main');
    expect(main.stages).toEqual({ current: 'main', sessions: { main: 1, pilot: 2 } });
    expect(main.participants.map((p) => [p.params.PROLIFIC_PID, p.stage])).toEqual([['mo', 'main']]);
    expect(main.tasks[0]).toMatchObject({ participants: 1, attempted: 1 });
    expect(main.games[0]).toMatchObject({ participants: 1 });
    expect(main.games[0].levels[0]).toMatchObject({ reached: 1, completed: 1 });

    const pilot = await results('?stage=pilot');
    expect(pilot.study.stage).toBe('pilot');
    expect(pilot.participants.map((p) => [p.params.PROLIFIC_PID, p.stage])).toEqual([
      ['pia', 'pilot'],
      ['pip', 'pilot'],
    ]);
    expect(pilot.tasks[0]).toMatchObject({ participants: 2 });
    expect(pilot.games[0].levels[0]).toMatchObject({ reached: 2, completed: 2 });

    const all = await results('?stage=all');
    expect(all.study.stage).toBeNull();
    expect(all.participants).toHaveLength(3);
    expect(all.tasks[0]).toMatchObject({ participants: 3 });
    expect(all.games[0].levels[0]).toMatchObject({ reached: 3, completed: 3 });

    const baselines = (await call('GET', '/admin/games/glow/baselines', ADMIN)).body.studies as {
      study: string;
      participants: number;
    }[];
    expect(baselines.find((b) => b.study === 'st')?.participants).toBe(1);

    const bad = await call('GET', '/admin/studies/st/results?stage=ALL', ADMIN);
    expect(bad.status).toBe(400);
    expect(bad.body.message).toMatch(/stage/);
  });

  it("keeps a pilot's solves out of the campaign's targets, draws and payments by default, and shows them when asked", async () => {
    await stage('camp', 'pilot');
    await part('camp', 'pia');
    await stage('camp', 'main');
    await part('camp', 'mo');

    const view = async (query = '') => {
      const r = await call('GET', `/admin/studies/camp/campaign${query}`, ADMIN);
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      return r.body as CampaignView & { stages: StudyStages };
    };
    const main = await view();
    expect(main.candidates[0]).toMatchObject({ id: 'c0', drawn: 1, solves: 1, status: 'needs_more' });
    expect(main.participants.total).toBe(1);
    expect(main.stages).toEqual({ current: 'main', sessions: { main: 1, pilot: 1 } });
    expect((await view('?stage=pilot')).candidates[0]).toMatchObject({ drawn: 1, solves: 1 });
    const all = await view('?stage=all');
    expect(all.candidates[0]).toMatchObject({ drawn: 2, solves: 2, status: 'met' });
    expect(all.participants.total).toBe(2);

    // The next draw counts the main stage only: one solve of two, so the candidate is still open to it.
    const counters = await store.campaigns.counters('study:camp');
    expect(counters.map((k) => [k.candidate, k.solves, k.attempts])).toEqual([['c0', 1, 1]]);

    const pay = async (query = '') =>
      ((await call('GET', `/admin/studies/camp/campaign/payments${query}`, ADMIN)).body as PaymentsView).sessions.map(
        (s) => s.participant,
      );
    expect(await pay()).toEqual(['mo']);
    expect(await pay('?stage=pilot')).toEqual(['pia']);
    expect((await pay('?stage=all')).sort()).toEqual(['mo', 'pia']);

    // The export: every session in every file, each saying its stage; payments.csv counts the main
    // stage, or the stage the export was asked for.
    const bundle = async (query = '') => {
      const made = await call('POST', `/admin/studies/camp/exports${query}`, ADMIN, { format: 'zip' });
      expect(made.status, JSON.stringify(made.body)).toBe(201);
      const res = await app.request((made.body.url as string).replace(/^\/api/, ''));
      expect(res.status).toBe(200);
      return new Map(readZip(Buffer.from(await res.arrayBuffer())).map((e) => [e.name, e.data.toString('utf8')]));
    };
    /** The named columns of each row of a CSV file without quoted commas. */
    const columns = (csv: string, names: readonly string[]) => {
      const [head, ...rows] = csv.trim().split('\r\n');
      const at = names.map((n) => head.split(',').indexOf(n));
      return rows.map((r) => at.map((i) => r.split(',')[i])).sort();
    };
    const files = await bundle();
    expect(columns(files.get('payments.csv')!, ['participant_id', 'stage'])).toEqual([['mo', 'main']]);
    expect(columns(files.get('attempts.csv')!, ['prolific_pid', 'stage'])).toEqual([
      ['mo', 'main'],
      ['pia', 'pilot'],
    ]);
    const events = files
      .get('events.jsonl')!
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { sessionId: string; stage: string });
    expect(new Set(events.map((e) => e.stage))).toEqual(new Set(['main', 'pilot']));
    const pilot = await bundle('?stage=pilot');
    expect(columns(pilot.get('payments.csv')!, ['participant_id', 'stage'])).toEqual([['pia', 'pilot']]);
    expect(columns((await bundle('?stage=all')).get('payments.csv')!, ['participant_id', 'stage'])).toEqual([
      ['mo', 'main'],
      ['pia', 'pilot'],
    ]);
    for (const url of ['/admin/studies/camp/exports?stage=ALL', '/admin/studies/camp/campaign/ledger.csv?stage=ALL']) {
      const bad = url.endsWith('.csv?stage=ALL')
        ? await call('GET', url, ADMIN)
        : await call('POST', url, ADMIN, { format: 'zip' });
      expect(bad.status, url).toBe(400);
      expect(bad.body.message).toMatch(/stage/);
    }
  });
});
