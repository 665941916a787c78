/**
 * `responses.csv`: what participants answered and wrote, one row per participant and question:
 * each question of a question item (single or block: `question_index` is its place), each
 * question of a submitted survey, each written description of a task or game (`part` first or
 * last), and a withdrawal. With the verdict of judged answers, the time on the item and how often
 * the answer changed, counted from the logged events. See docs/formats/README.md.
 */
import type { LogEvent } from '../../core/log/events';
import { csvRecord } from '../../core/formats/csv';
import { effectiveState } from '../../core/study/rules';
import { answerChanges } from '../../core/study/actions';
import { answerKey } from '../../core/grading/agreement';
import { finalGrades } from '../grading/grading';
import { isPractice, questionRefs, type StudyItem } from '../../core/study/schema';
import {
  type ExportContext,
  definitionFor,
  isExcludedSession,
  isPlaytestSession,
  participantId,
  sessionEvents,
} from './context';

/** 2: `stage` after `excluded`. */
export const RESPONSES_VERSION = 2;

/** The columns, in order. */
export const RESPONSES_COLUMNS = [
  'study_id',
  'study_version',
  'session_id',
  'participant_id',
  'session_state',
  'playtest',
  'excluded',
  'stage',
  'item_id',
  'item_kind',
  'practice',
  'kind',
  'question_index',
  'question_id',
  'collection',
  'part',
  'answer',
  'comment',
  'verdict',
  'correct',
  'item_time_ms',
  'changes',
  'answered_at',
] as const;

/** Client time (ms since the session started) from an item's first `item.start` to its `item.end`, or to its last event. */
function itemTimes(events: readonly Pick<LogEvent, 't' | 'kind' | 'data'>[]): Map<string, number> {
  const span = new Map<string, { from: number; to: number; ended: boolean }>();
  let current: string | null = null;
  for (const e of events) {
    if (e.kind === 'item.start') {
      current = String(e.data.item);
      if (!span.has(current)) span.set(current, { from: e.t, to: e.t, ended: false });
      continue;
    }
    const id = e.kind === 'item.end' ? String(e.data.item) : current;
    const s = id === null ? undefined : span.get(id);
    if (!s || s.ended) continue;
    s.to = e.t;
    if (e.kind === 'item.end') {
      s.ended = true;
      current = null;
    }
  }
  return new Map([...span].map(([id, s]) => [id, Math.round(s.to - s.from)]));
}

/** Answer changes (`answerChanges`) of each answer: question choices and texts, survey answers, description texts. */
function changeCounts(events: readonly Pick<LogEvent, 'kind' | 'data'>[]): Map<string, number> {
  const values = new Map<string, unknown[]>();
  const add = (key: string, value: unknown) => {
    let list = values.get(key);
    if (!list) values.set(key, (list = []));
    list.push(value);
  };
  for (const e of events) {
    const item = String(e.data.item);
    if (e.kind === 'question.choice') add(`q|${item}|${Number(e.data.index ?? 0)}`, e.data.label);
    else if (e.kind === 'question.input') add(`q|${item}|${Number(e.data.index ?? 0)}`, e.data.text);
    else if (e.kind === 'survey.answer') add(`s|${item}|${String(e.data.question)}`, e.data.value);
    else if (e.kind === 'description.input') add(`d|${item}|${String(e.data.stage)}`, e.data.text);
  }
  return new Map([...values].map(([key, list]) => [key, answerChanges(list)]));
}

const answerValue = (v: unknown): string =>
  Array.isArray(v) ? v.join('; ') : v === undefined || v === null ? '' : String(v);

/** Yields the header, then the rows of one session at a time. */
export async function* responsesCsv(ctx: ExportContext): AsyncGenerator<string> {
  yield csvRecord(RESPONSES_COLUMNS);
  // A free response with a final grade is correct or wrong by its pass, as in the results.
  const grades = await finalGrades(ctx.store, ctx.studyId);
  for (const s of ctx.sessions) {
    const def = definitionFor(ctx, s);
    const [events, subs, responses] = await Promise.all([
      sessionEvents(ctx, s.id),
      ctx.store.listSubmissions(s.id),
      ctx.store.listResponses(s.id),
    ]);
    const times = itemTimes(events);
    const changes = changeCounts(events);
    const state = effectiveState(s, def, ctx.now);
    const byId = new Map(def.items.map((i) => [i.id, i]));
    let chunk = '';
    const row = (
      item: StudyItem | undefined,
      itemId: string,
      kind: string,
      index: number | '',
      questionId: string,
      collection: string,
      part: string,
      answer: string,
      comment: string,
      verdict: string,
      changeKey: string | null,
      at: number | null,
    ) => {
      chunk += csvRecord([
        ctx.studyId,
        s.studyVersion,
        s.id,
        participantId(s),
        state,
        isPlaytestSession(s),
        isExcludedSession(s),
        s.stage,
        itemId,
        item?.kind ?? '',
        item ? isPractice(item) : '',
        kind,
        index,
        questionId,
        collection,
        part,
        answer,
        comment,
        verdict,
        verdict === 'correct' ? true : verdict === 'wrong' ? false : '',
        times.get(itemId) ?? '',
        changeKey === null ? '' : (changes.get(changeKey) ?? 0),
        at === null ? '' : new Date(at).toISOString(),
      ]);
    };
    for (const pos of s.order) {
      const item = def.items[pos];
      if (item.kind === 'question') {
        if (!times.has(item.id) && !subs.some((x) => x.item === item.id)) continue;
        questionRefs(item).forEach((ref, index) => {
          const sub = subs.find((x) => x.item === item.id && x.testIndex === index);
          const a = sub?.grid as { choice?: string; text?: string } | undefined;
          const grade = sub?.verdict === 'ungraded' ? grades.get(answerKey(s.id, item.id, index)) : undefined;
          const verdict = grade ? (grade.pass ? 'correct' : 'wrong') : (sub?.verdict ?? '');
          row(
            item,
            item.id,
            'question',
            index,
            ref.question,
            ref.collection,
            '',
            a?.choice ?? a?.text ?? '',
            '',
            verdict,
            `q|${item.id}|${index}`,
            sub?.at ?? null,
          );
        });
      }
      for (const r of responses.filter((x) => x.item === item.id && x.kind !== 'withdraw')) {
        if (r.kind === 'survey' && item.kind === 'survey') {
          const answers = r.value as Record<string, unknown>;
          for (const q of item.questions)
            row(
              item,
              item.id,
              'survey',
              '',
              q.id,
              '',
              '',
              answerValue(answers[q.id]),
              '',
              '',
              `s|${item.id}|${q.id}`,
              r.at,
            );
        } else if (r.kind === 'description') {
          row(
            item,
            item.id,
            'description',
            '',
            '',
            '',
            r.part,
            answerValue((r.value as { text?: string }).text),
            '',
            '',
            `d|${item.id}|${r.part}`,
            r.at,
          );
        }
      }
    }
    for (const r of responses.filter((x) => x.kind === 'withdraw')) {
      const v = r.value as { reason?: string; comment?: string };
      row(
        byId.get(r.item),
        r.item,
        'withdraw',
        '',
        '',
        '',
        '',
        answerValue(v.reason),
        answerValue(v.comment),
        '',
        null,
        r.at,
      );
    }
    if (chunk) yield chunk;
  }
}
