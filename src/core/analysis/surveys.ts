/**
 * A study's survey answers summarised per question, as survey tools show them: for choice and
 * multi questions the count and share of each option; for scale and number questions the
 * distribution (n, mean, median, quartiles) and the count of each value; for text questions every
 * answer with the participant who gave it. Computed on the digest threads
 * (`server/digests/surveys.ts`), never on the thread that acknowledges participants' events.
 *
 * Rules:
 * - Only counted sessions count: a designer's playtest or a session a researcher excluded is
 *   left out (as in every other result).
 * - A survey item is summarised once per distinct definition: versions whose survey has the same
 *   title and questions are added up together; a survey changed between versions gives one
 *   summary per definition, each naming its versions.
 * - A question's `answered` is the sessions that answered it; `skipped` those that submitted the
 *   survey without answering it. Shares are of `answered`: for a multi question they add up to
 *   more than 100%.
 * - Answers are the stored ones, which the server checked against the definition when they came
 *   (`core/study/survey.ts`); a value that does not fit its question (a stored answer of another
 *   type) is left out and counted in `unreadable`.
 */
import type { StudyDefinition, SurveyItem, SurveyQuestion } from '../study/schema';
import { scaleRange } from '../study/survey';
import { distribution, type Dist } from './dist';

/** One stored survey response (`responses` with kind `survey`). */
export interface SurveyResponseInput {
  readonly sessionId: string;
  readonly item: string;
  readonly value: unknown;
  /** When the server stored it, ms since the epoch. */
  readonly at: number;
}

/** A session as the summary needs it. */
export interface SurveySessionInput {
  readonly id: string;
  /** The recruitment platform's participant id, else the session id. */
  readonly participant: string;
  readonly studyVersion: number;
  /** False for playtests and excluded sessions: they count toward nothing. */
  readonly counted: boolean;
}

export interface SurveySummaryInput {
  readonly versions: readonly { readonly version: number; readonly definition: StudyDefinition }[];
  /** One version, or null for every version. */
  readonly version: number | null;
  readonly sessions: readonly SurveySessionInput[];
  readonly responses: readonly SurveyResponseInput[];
}

export interface OptionShare {
  readonly option: string;
  readonly count: number;
  /** `count / answered`, 0 when no one answered. */
  readonly share: number;
}

export interface ValueCount {
  readonly value: number;
  readonly count: number;
}

export interface TextAnswer {
  readonly sessionId: string;
  readonly participant: string;
  readonly text: string;
  readonly at: number;
}

interface QuestionBase {
  readonly id: string;
  readonly prompt: string;
  readonly type: SurveyQuestion['type'];
  readonly required: boolean;
  readonly answered: number;
  readonly skipped: number;
  readonly unreadable: number;
}

export type SurveyQuestionSummary =
  | (QuestionBase & { readonly summary: 'choice'; readonly options: OptionShare[] })
  | (QuestionBase & {
      readonly summary: 'numeric';
      readonly dist: Omit<Dist, 'values'>;
      /** Each value given and how often, ascending; a scale lists every point, given or not. */
      readonly counts: ValueCount[];
      /** Scale questions: the ends and what they mean. */
      readonly scale: {
        readonly min: number;
        readonly max: number;
        readonly labels: readonly [string, string] | null;
      } | null;
    })
  | (QuestionBase & { readonly summary: 'text'; readonly answers: TextAnswer[] });

export interface SurveySummary {
  readonly item: string;
  readonly title: string;
  /** The study versions whose survey this is (same title and questions). */
  readonly versions: number[];
  /** Counted sessions that submitted this survey. */
  readonly respondents: number;
  readonly questions: SurveyQuestionSummary[];
}

export interface StudySurveySummaries {
  readonly version: number | null;
  readonly surveys: SurveySummary[];
}

/**
 * The survey summaries of a study (see the module comment).
 * @example
 * surveySummaries({ versions, version: null, sessions, responses }).surveys[0].questions[0]
 * // {id: 'hand', summary: 'choice', answered: 2, options: [{option: 'Left', count: 1, share: 0.5}, ...]}
 */
export function surveySummaries(input: SurveySummaryInput): StudySurveySummaries {
  const inScope = input.versions.filter((v) => input.version === null || v.version === input.version);
  // One group per item and definition, in the order the items first appear.
  const groups: { item: SurveyItem; key: string; versions: number[] }[] = [];
  for (const { version, definition } of inScope) {
    for (const item of definition.items) {
      if (item.kind !== 'survey') continue;
      const key = JSON.stringify([item.id, item.title, item.questions]);
      const found = groups.find((g) => g.key === key);
      if (found) found.versions.push(version);
      else groups.push({ item, key, versions: [version] });
    }
  }
  const sessions = new Map(input.sessions.filter((s) => s.counted).map((s) => [s.id, s]));
  const surveys = groups.map(({ item, versions }) => {
    const mine = input.responses
      .filter((r) => r.item === item.id)
      .flatMap((r) => {
        const s = sessions.get(r.sessionId);
        if (!s || !versions.includes(s.studyVersion)) return [];
        const value = r.value && typeof r.value === 'object' && !Array.isArray(r.value) ? r.value : {};
        return [{ session: s, at: r.at, answers: value as Record<string, unknown> }];
      });
    return {
      item: item.id,
      title: item.title,
      versions,
      respondents: mine.length,
      questions: item.questions.map((q) => summariseQuestion(q, mine)),
    };
  });
  return { version: input.version, surveys };
}

function summariseQuestion(
  q: SurveyQuestion,
  responses: readonly { session: SurveySessionInput; at: number; answers: Record<string, unknown> }[],
): SurveyQuestionSummary {
  const given = responses.filter((r) => r.answers[q.id] !== undefined && r.answers[q.id] !== null);
  const base = {
    id: q.id,
    prompt: q.prompt,
    type: q.type,
    required: q.required,
    skipped: responses.length - given.length,
  };
  switch (q.type) {
    case 'choice':
    case 'multi': {
      const options = q.options ?? [];
      const counts = new Map(options.map((o) => [o, 0]));
      let answered = 0;
      let unreadable = 0;
      for (const r of given) {
        const v = r.answers[q.id];
        const picked = typeof v === 'string' ? [v] : Array.isArray(v) ? v : null;
        if (!picked || !picked.every((p) => typeof p === 'string' && counts.has(p))) {
          unreadable++;
          continue;
        }
        answered++;
        for (const p of new Set(picked as string[])) counts.set(p, counts.get(p)! + 1);
      }
      return {
        ...base,
        answered,
        unreadable,
        summary: 'choice',
        options: options.map((option) => {
          const count = counts.get(option)!;
          return { option, count, share: answered ? count / answered : 0 };
        }),
      };
    }
    case 'scale':
    case 'number': {
      const values: number[] = [];
      for (const r of given) {
        const v = r.answers[q.id];
        if (typeof v === 'number' && Number.isFinite(v)) values.push(v);
      }
      const { values: sorted, ...dist } = distribution(values);
      const counts = new Map<number, number>();
      const scale = q.type === 'scale' ? { ...scaleRange(q), labels: q.labels ?? null } : null;
      if (scale) for (let v = scale.min; v <= scale.max; v++) counts.set(v, 0);
      for (const v of sorted) counts.set(v, (counts.get(v) ?? 0) + 1);
      return {
        ...base,
        answered: values.length,
        unreadable: given.length - values.length,
        summary: 'numeric',
        dist,
        counts: [...counts].sort((a, b) => a[0] - b[0]).map(([value, count]) => ({ value, count })),
        scale,
      };
    }
    case 'text':
    case 'longtext': {
      const answers: TextAnswer[] = [];
      for (const r of given) {
        const v = r.answers[q.id];
        if (typeof v === 'string')
          answers.push({ sessionId: r.session.id, participant: r.session.participant, text: v, at: r.at });
      }
      answers.sort((a, b) => a.at - b.at || a.sessionId.localeCompare(b.sessionId));
      return { ...base, answered: answers.length, unreadable: given.length - answers.length, summary: 'text', answers };
    }
  }
}
