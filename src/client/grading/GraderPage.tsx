import { useState } from 'react';
import { queryOptions, useQuery, useQueryClient } from '@tanstack/react-query';
import { useParams } from 'wouter';
import { getJson } from '../api';
import type { Grade, GradeInput } from '../../core/grading/grade';
import type { GraderQueue } from '../../core/protocol/grading';
import { Button } from '../ui/Button';
import { GradeForm, GradingQuestionView } from './GradeForm';
import type { GradeBody } from '../../core/protocol/requests';

const auth = (token: string) => ({ Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' });

const queueQuery = (token: string) =>
  queryOptions({
    queryKey: ['grading', 'queue', token],
    queryFn: () => getJson<GraderQueue>('/api/grading/queue', { headers: auth(token) }),
    retry: false,
  });

/**
 * A grader's page, `/grade/<token>`: the answers to grade one at a time in this grader's own
 * order, without any participant's or other grader's name; the rubric to score each criterion
 * with, and the grader's own earlier grades to change.
 */
export function GraderPage() {
  const { token } = useParams<{ token: string }>();
  const q = useQuery(queueQuery(token));
  const client = useQueryClient();
  const [index, setIndex] = useState(0);
  if (q.isPending)
    return (
      <Shell>
        <p className="text-slate-300">Loading the answers to grade…</p>
      </Shell>
    );
  if (q.isError)
    return (
      <Shell>
        <p role="alert" className="rounded-lg border border-rose-800 bg-rose-950/40 p-4 text-rose-200">
          {(q.error as Error).message}
        </p>
      </Shell>
    );
  const queue = q.data;
  if (queue.total === 0)
    return (
      <Shell title={queue.study} grader={queue.grader}>
        <p className="text-slate-300">
          There is nothing to grade yet: no participant has given a written answer. Come back to this link later.
        </p>
      </Shell>
    );
  const at = Math.min(index, queue.total - 1);
  const answer = queue.answers[at];
  const save = async (input: GradeInput) => {
    const r = await getJson<{ grade: Grade }>(`/api/grading/answers/${encodeURIComponent(answer.id)}`, {
      method: 'PUT',
      headers: auth(token),
      body: JSON.stringify(input satisfies GradeBody),
    });
    client.setQueryData(
      queueQuery(token).queryKey,
      (old) =>
        old && {
          ...old,
          answers: old.answers.map((a) => (a.id === answer.id ? { ...a, grade: r.grade } : a)),
          graded: old.answers.filter((a) => a.id === answer.id || a.grade).length,
        },
    );
  };
  const nextUngraded = queue.answers.findIndex((a, i) => i > at && !a.grade);
  return (
    <Shell title={queue.study} grader={queue.grader}>
      <div className="flex flex-col gap-2" aria-label="Progress">
        <div className="flex items-baseline justify-between text-sm text-slate-300">
          <span data-testid="grading-progress">
            <strong className="text-white">
              {queue.graded} of {queue.total}
            </strong>{' '}
            graded
          </span>
          <span>
            Answer {at + 1} of {queue.total}
          </span>
        </div>
        <div
          className="h-1.5 overflow-hidden rounded bg-slate-800"
          role="progressbar"
          aria-label="Answers graded"
          aria-valuemin={0}
          aria-valuemax={queue.total}
          aria-valuenow={queue.graded}
        >
          <div className="h-full bg-emerald-400" style={{ width: `${(100 * queue.graded) / queue.total}%` }} />
        </div>
      </div>
      <nav aria-label="Answers" className="flex flex-wrap gap-1">
        {queue.answers.map((a, i) => (
          <button
            key={a.id}
            type="button"
            onClick={() => setIndex(i)}
            aria-current={i === at ? 'true' : undefined}
            aria-label={`Answer ${i + 1}${a.grade ? ', graded' : ''}`}
            className={`h-8 min-w-8 rounded border px-2 text-xs tabular-nums ${i === at ? 'border-sky-400 bg-sky-600/30 text-white' : a.grade ? 'border-emerald-700 bg-emerald-900/40 text-emerald-100' : 'border-slate-700 text-slate-300 hover:border-slate-500'}`}
          >
            {i + 1}
            {a.grade ? ' ✓' : ''}
          </button>
        ))}
      </nav>
      <section className="grid gap-5 lg:grid-cols-2" aria-label={`Answer ${at + 1}`}>
        <div className="flex flex-col gap-4">
          <GradingQuestionView q={answer.question} />
          <div>
            <h2 className="mb-1 text-sm font-semibold text-slate-200">The participant's answer</h2>
            <div
              data-testid="grading-answer"
              className="whitespace-pre-wrap break-words rounded-lg border border-slate-700 bg-slate-950 p-4 font-mono text-sm text-slate-100"
            >
              {answer.answer || <em className="text-slate-400">(empty)</em>}
            </div>
          </div>
        </div>
        <div className="flex flex-col gap-4">
          <GradeForm key={answer.id} q={answer.question} grade={answer.grade} onSave={save} />
          <div className="flex flex-wrap gap-2 border-t border-slate-800 pt-3">
            <Button onClick={() => setIndex(at - 1)} disabled={at === 0}>
              Previous
            </Button>
            <Button onClick={() => setIndex(at + 1)} disabled={at === queue.total - 1}>
              Next
            </Button>
            {nextUngraded >= 0 && (
              <Button tone="ghost" onClick={() => setIndex(nextUngraded)}>
                Next ungraded
              </Button>
            )}
            {queue.graded === queue.total && (
              <p role="status" className="self-center text-sm text-emerald-300">
                Every answer is graded. You can still change any grade.
              </p>
            )}
          </div>
        </div>
      </section>
    </Shell>
  );
}

function Shell({ title, grader, children }: { title?: string; grader?: string; children: React.ReactNode }) {
  return (
    <div className="h-full overflow-y-auto bg-slate-950">
      <header className="border-b border-slate-800 bg-slate-900 px-4 py-2">
        <div className="mx-auto flex max-w-7xl flex-wrap items-baseline gap-x-3">
          <h1 className="text-base font-semibold text-white">Grading{title ? `: ${title}` : ''}</h1>
          {grader && <span className="text-sm text-slate-400">as {grader}</span>}
          <span className="ml-auto text-xs text-slate-400">
            Answers are shown without the participant's identity, in an order of your own.
          </span>
        </div>
      </header>
      <main className="mx-auto flex max-w-7xl flex-col gap-5 p-4 sm:p-6">{children}</main>
    </div>
  );
}
