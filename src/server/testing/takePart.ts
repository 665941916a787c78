/**
 * The tests' participant: starts a session of a study through the participant routes of an
 * in-process app and plays every item it is given the way a page would log it (tasks solved on
 * the first trial, built-in games played through their recorded solution of level 1, surveys
 * answered), then finishes. Event times are fixed (`t` = 10 ms a seq), so two apps given the same
 * clock store the same sessions apart from their ids.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Hono } from 'hono';
import { expect } from 'vitest';
import { createRun, gameActionData, parseActions, step, type ActionInput } from '../../core/game';
import { games, solutions } from '../../games';
import { apiCaller } from './api';

const ROOT = path.resolve(__dirname, '../../..');

/** A sample task's test outputs (`data/tasks/samples/<task>.json`). */
function answers(task: string): number[][][] {
  const file = JSON.parse(readFileSync(path.join(ROOT, 'data/tasks/samples', `${task}.json`), 'utf8')) as {
    test: { output: number[][] }[];
  };
  return file.test.map((t) => t.output);
}

export interface TakenPart {
  readonly sessionId: string;
  readonly token: string;
}

interface ItemView {
  id: string;
  kind: string;
  task?: unknown;
  game?: string;
  testIndices?: number[];
  questions?: { id: string }[];
}

/**
 * Takes part in `studyId` as the participant `params` names and finishes the session. `tasks`
 * maps each task item's id (a pool candidate's too) to its sample task's name.
 */
export async function takePart(
  app: Hono,
  studyId: string,
  params: Record<string, string>,
  tasks: Readonly<Record<string, string>>,
): Promise<TakenPart> {
  const call = apiCaller(() => app);
  const started = await call('POST', `/studies/${studyId}/sessions`, null, { params });
  expect(started.status, JSON.stringify(started.body)).toBe(201);
  const s = started.body as TakenPart;
  const items = (await call('GET', `/sessions/${s.sessionId}`, s.token)).body.items as ItemView[];
  const events: { seq: number; t: number; kind: string; data: Record<string, unknown> }[] = [];
  const log = (kind: string, data: Record<string, unknown> = {}) =>
    events.push({ seq: events.length, t: events.length * 10, kind, data });
  const send = async () => {
    const r = await call('POST', `/sessions/${s.sessionId}/events`, s.token, { events: events.slice() });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
  };
  for (const item of items) {
    log('item.start', { item: item.id, kind: item.kind });
    if (item.kind === 'task') {
      const outputs = answers(tasks[item.id]);
      for (const t of item.testIndices ?? [0]) {
        log('paint', { row: 0, col: 0, color: 1, stroke: t });
        const judged = await call('POST', `/sessions/${s.sessionId}/submissions`, s.token, {
          key: `${item.id}-${t}`,
          item: item.id,
          testIndex: t,
          grid: outputs[t],
        });
        expect(judged.body.verdict).toBe('correct');
        log('submit', { index: t, trial: 1, verdict: 'correct', grid: outputs[t] });
      }
    } else if (item.kind === 'game' && item.game) {
      const game = games[item.game];
      log('game.open', { game: item.game, seed: 0 });
      let run = createRun(game, { seed: 0 });
      for (const input of parseActions(`RESET,${solutions[item.game][0]}`)) {
        const st = step(run, input as ActionInput);
        run = st.run;
        log(
          'game.action',
          gameActionData(item.game, input as ActionInput, st.response) as unknown as Record<string, unknown>,
        );
      }
    } else if (item.kind === 'survey') {
      // Answers are taken for the item the stored log is on.
      await send();
      const answered = await call('POST', `/sessions/${s.sessionId}/survey`, s.token, {
        key: `survey-${item.id}`,
        item: item.id,
        answers: Object.fromEntries(
          (item.questions ?? []).map((q) => [q.id, `an answer of ${params.PROLIFIC_PID ?? 'someone'}`]),
        ),
      });
      expect(answered.status, JSON.stringify(answered.body)).toBeLessThan(300);
    }
    log('item.end', { item: item.id });
  }
  await send();
  const done = await call('POST', `/sessions/${s.sessionId}/finish`, s.token, { lastSeq: events.length - 1 });
  expect(done.status, JSON.stringify(done.body)).toBe(200);
  return s;
}
