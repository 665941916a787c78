/**
 * `surveys.json` in the study bundle: real sessions answer a survey through the participant
 * routes, one is excluded, the survey changes in a new version; the bundle's file (written on
 * the main thread and on an export thread) holds exactly what the results route's survey summary
 * answers, for every version and for one, and validates against the bundle's own schema.
 */
import path from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Hono } from 'hono';
import { createApi } from '../app';
import { TaskLibrary } from '../collections/collections';
import { hashToken } from '../people/auth';
import { gameIds, replayWithEngine } from '../study/studies';
import { backends } from '../store/testing';
import type { Store } from '../store/types';
import { DigestPool } from '../digests/pool';
import { apiCaller } from '../testing/api';
import { SURVEY, answerSurvey, surveyStudy } from '../testing/surveyStudy';
import { readZip } from './zip';

const ROOT = path.resolve(__dirname, '../../..');
const ADMIN = 'researcher-token-for-survey-export-01';

const STUDY = surveyStudy('A survey exported');

let library: TaskLibrary;
const pool = new DigestPool(1);
beforeAll(async () => {
  library = new TaskLibrary();
  await library.mount('data/tasks/samples', ROOT);
});
afterAll(() => pool.stop());

describe.each(backends)('surveys.json on $name', (backend) => {
  let store: Store;
  let app: Hono;
  let threaded: Hono;
  beforeEach(async () => {
    store = await backend.open();
    const study = {
      store,
      adminTokenHash: hashToken(ADMIN),
      replay: replayWithEngine,
      games: gameIds,
      digests: pool,
      now: () => Date.UTC(2026, 0, 1),
    };
    app = createApi({ library, version: 'test', study });
    threaded = createApi({ library, version: 'test', study: { ...study, exportThreads: true } });
  });
  afterEach(async () => {
    await store.close();
  });

  const call = apiCaller(() => app);
  const answer = (pid: string, answers: Record<string, unknown>) => answerSurvey(call, 'sv', pid, answers);
  /** The bundle's files by name, downloaded through `via` (the main thread's app or the threaded one). */
  const bundle = async (via: Hono, version?: number) => {
    const made = await apiCaller(() => via)(
      'POST',
      'admin/studies/sv/exports',
      ADMIN,
      version === undefined ? { format: 'zip' } : { format: 'zip', version },
    );
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    const res = await via.request((made.body as { url: string }).url.replace(/^\/api/, ''));
    expect(res.status).toBe(200);
    const files = new Map(readZip(Buffer.from(await res.arrayBuffer())).map((e) => [e.name, e.data.toString('utf8')]));
    return files;
  };
  const summary = async (query = '') => {
    const r = await call('GET', `admin/studies/sv/results/surveys${query}`, ADMIN);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    return r.body as { version: number | null; surveys: unknown[] };
  };

  it("holds the results route's survey summary, every version and one, and validates against its schema", async () => {
    expect((await call('POST', 'admin/studies/sv', ADMIN, { definition: STUDY })).status).toBe(201);
    await answer('ann', { hand: 'Left', devices: ['Phone', 'Computer'], ease: 2, age: 30, notes: 'Fun.' });
    await answer('bob', { hand: 'Right', devices: ['Computer'], ease: 4, age: 41 });
    const excluded = await answer('dan', { hand: 'Both', ease: 5, age: 99, notes: '=cmd|x' });
    expect((await call('POST', `admin/sessions/${excluded}/exclude`, ADMIN, { reason: 'mine' })).status).toBe(200);
    // The survey changes: version 2 is summarised apart.
    const changed = { ...SURVEY, questions: [{ ...SURVEY.questions[0], options: ['Left', 'Right'] }] };
    expect(
      (await call('PUT', 'admin/studies/sv', ADMIN, { definition: { ...STUDY, items: [STUDY.items[0], changed] } }))
        .status,
    ).toBe(201);
    await answer('cat', { hand: 'Right' });

    const files = await bundle(app);
    const file = JSON.parse(files.get('surveys.json')!) as Record<string, unknown>;
    const all = await summary();
    expect(file).toEqual({
      format: 'arc-studio.surveys',
      formatVersion: 1,
      studyId: 'sv',
      studyVersion: null,
      surveys: all.surveys,
    });
    // What the route counts: two respondents of version 1 (the excluded one left out), one of version 2.
    expect(
      (file.surveys as { versions: number[]; respondents: number }[]).map((s) => [s.versions, s.respondents]),
    ).toEqual([
      [[1], 2],
      [[2], 1],
    ]);
    const validate = new Ajv2020({ strict: false }).compile(JSON.parse(files.get('schemas/surveys.schema.json')!));
    expect(validate(file) ? null : validate.errors).toBeNull();
    // The schema is not a formality: a summary with a share past 1 is refused.
    const broken = structuredClone(file) as { surveys: { questions: { options?: { share: number }[] }[] }[] };
    broken.surveys[0].questions[0].options![0].share = 2;
    expect(validate(broken)).toBe(false);
    // The SHA256SUMS name it.
    expect(files.get('SHA256SUMS')).toMatch(/^[0-9a-f]{64} {2}surveys\.json$/m);

    // One version: the route's answer for that version.
    const v1 = JSON.parse((await bundle(app, 1)).get('surveys.json')!) as Record<string, unknown>;
    expect(v1).toEqual({ ...file, studyVersion: 1, surveys: (await summary('?version=1')).surveys });
    expect(validate(v1) ? null : validate.errors).toBeNull();

    // Downloaded on its own (format "surveys"), the same file.
    const made = await call('POST', 'admin/studies/sv/exports', ADMIN, { format: 'surveys' });
    expect(made.body).toMatchObject({ fileName: 'sv-surveys.json' });
    const single = await app.request((made.body as { url: string }).url.replace(/^\/api/, ''));
    expect(single.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(await single.text()).toBe(files.get('surveys.json'));

    // Written on an export thread (a study of built-in games only), the same bytes.
    expect((await bundle(threaded)).get('surveys.json')).toBe(files.get('surveys.json'));
  });

  it('is an empty list for a study without a survey', async () => {
    const definition = { ...STUDY, items: [STUDY.items[0]] };
    expect((await call('POST', 'admin/studies/sv', ADMIN, { definition })).status).toBe(201);
    const file = JSON.parse((await bundle(app)).get('surveys.json')!) as { surveys: unknown[] };
    expect(file).toEqual({
      format: 'arc-studio.surveys',
      formatVersion: 1,
      studyId: 'sv',
      studyVersion: null,
      surveys: [],
    });
  });
});
