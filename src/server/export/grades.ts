/**
 * `grades.csv`: one row per grade of a free-response or symbolic answer: each grader's grade
 * (`kind` grade), the researcher's adjudication (`adjudication`), and for an answer whose graders
 * agree, the mean that is its final grade (`mean`). `final` marks the one row per answer that is
 * its final grade (src/server/grading/grading.ts). See docs/formats/README.md.
 */
import { answerKey } from '../../core/grading/agreement';
import type { Grade } from '../../core/grading/grade';
import { csvRecord } from '../../core/formats/csv';
import { answerStatuses, answerText, questionRef } from '../grading/grading';
import { type ExportContext, definitionFor, isExcludedSession, participantId } from './context';

/** 2: `stage` after `excluded`. */
export const GRADES_VERSION = 2;

/** The columns, in order. */
export const GRADES_COLUMNS = [
  'study_id',
  'study_version',
  'session_id',
  'participant_id',
  'excluded',
  'stage',
  'item_id',
  'test_index',
  'collection',
  'question',
  'answer',
  'kind',
  'grader',
  'criterion_scores',
  'criterion_notes',
  'total',
  'max_points',
  'pass',
  'note',
  'final',
  'final_source',
  'graded_at',
] as const;

/** Yields the header, then the grades of each session in order, answer by answer. */
export async function* gradesCsv(ctx: ExportContext): AsyncGenerator<string> {
  yield csvRecord(GRADES_COLUMNS);
  const { grading } = ctx.store;
  const [graders, grades, adjudications, gradable] = await Promise.all([
    grading.listGraders(ctx.studyId),
    grading.listGrades(ctx.studyId),
    grading.listAdjudications(ctx.studyId),
    grading.gradableAnswers(ctx.studyId),
  ]);
  const label = new Map(graders.map((g) => [g.id, g.label]));
  const statuses = answerStatuses({
    answers: gradable.map((a) => ({ ...a, key: answerKey(a.sessionId, a.item, a.testIndex) })),
    grades,
    adjudications,
  });
  const answers = new Map<string, unknown>();
  const keysBySession = new Map<string, Set<string>>();
  const addKey = (sessionId: string, item: string, testIndex: number) => {
    let set = keysBySession.get(sessionId);
    if (!set) keysBySession.set(sessionId, (set = new Set()));
    set.add(answerKey(sessionId, item, testIndex));
  };
  for (const g of grades) addKey(g.sessionId, g.item, g.testIndex);
  for (const a of adjudications) addKey(a.sessionId, a.item, a.testIndex);
  for (const s of ctx.sessions) {
    const keys = keysBySession.get(s.id);
    if (!keys) continue;
    for (const sub of await ctx.store.listSubmissions(s.id))
      answers.set(answerKey(s.id, sub.item, sub.testIndex), sub.grid);
    const def = definitionFor(ctx, s);
    let chunk = '';
    for (const key of [...keys].sort()) {
      const [, item, ti] = key.split('|');
      const testIndex = Number(ti);
      const ref = questionRef(def, item, testIndex);
      const st = statuses.get(key)?.status;
      const source = st?.status === 'final' ? st.source : null;
      const row = (kind: string, grader: string, g: Grade, at: number, final: boolean) =>
        csvRecord([
          ctx.studyId,
          s.studyVersion,
          s.id,
          participantId(s),
          isExcludedSession(s),
          s.stage,
          item,
          testIndex,
          ref?.collection ?? '',
          ref?.question ?? '',
          answerText(answers.get(key)),
          kind,
          grader,
          JSON.stringify(g.criteria.map((c) => c.points)),
          JSON.stringify(g.criteria.map((c) => c.note)),
          g.points,
          g.maxPoints,
          g.pass,
          g.note,
          final,
          final ? source : '',
          at === 0 ? '' : new Date(at).toISOString(),
        ]);
      const mine = grades.filter((g) => answerKey(g.sessionId, g.item, g.testIndex) === key);
      for (const g of mine) chunk += row('grade', label.get(g.graderId) ?? g.graderId, g, g.at, source === 'single');
      const adj = adjudications.find((a) => answerKey(a.sessionId, a.item, a.testIndex) === key);
      if (adj) chunk += row('adjudication', adj.actor, adj, adj.at, source === 'adjudicated');
      if (source === 'agreed' && st?.status === 'final') chunk += row('mean', '', st.grade, 0, true);
    }
    if (chunk) yield chunk;
  }
}
