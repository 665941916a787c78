import { useState } from 'react';
import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link } from 'wouter';
import { Bar, BarChart, CartesianGrid, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import type { GradeInput } from '../../core/grading/grade';
import type { Agreement } from '../../core/grading/agreement';
import type { GradedAnswerView, GradingItemView, GradingOverview, NewGraderLink } from '../../core/protocol/grading';
import { GradeForm, GradingQuestionView } from '../grading/GradeForm';
import { Button } from '../ui/Button';
import { ConfirmDialog } from '../ui/ConfirmDialog';
import { adminJson } from './auth';
import { SortableTable, Stat, formatPct, type Column } from './widgets';
import type { AdjudicationBody, GraderBody } from '../../core/protocol/requests';

const gradingQuery = (studyId: string) =>
  queryOptions({
    queryKey: ['admin', 'grading', studyId],
    queryFn: () => adminJson<GradingOverview>(`/api/admin/studies/${encodeURIComponent(studyId)}/grading`),
  });

const fmt = (x: number | null, digits = 2) => (x === null ? '–' : x.toFixed(digits));
const SOURCE: Record<string, string> = {
  single: 'one grader',
  agreed: 'graders agree (mean)',
  adjudicated: 'adjudicated',
};

/**
 * The study's Grading tab: graders and their links, their progress, agreement between them per
 * question and overall, the disagreements to adjudicate, and the final grades with their
 * distribution per question.
 */
export function GradingPanel({ studyId }: { studyId: string }) {
  const q = useQuery(gradingQuery(studyId));
  if (q.isPending) return <p className="text-slate-400">Loading the grading…</p>;
  if (q.isError)
    return (
      <p role="alert" className="text-rose-300">
        {(q.error as Error).message}
      </p>
    );
  const g = q.data;
  const open = g.answers.filter((a) => a.status === 'disagreement');
  return (
    <div className="flex flex-col gap-8">
      <p className="text-xs text-slate-400">
        Free-response and symbolic answers of counted sessions (not excluded, not playtests, not practice) are graded
        here. Every grader grades every answer, blind to the participant and to the other graders. Two grades disagree
        when one passes and the other fails, or their totals differ by more than {Math.round(g.pointsShare * 100)}% of
        the question's points; a single grade, or the mean of agreeing grades, is final.
      </p>
      <Graders studyId={studyId} overview={g} />
      <section className="flex flex-col gap-3" aria-labelledby="agreement-h">
        <h2 id="agreement-h" className="text-lg font-semibold text-white">
          Agreement
        </h2>
        <AgreementStats a={g.overall} label="All questions (points as a share of each question's total)" />
        <ItemsTable items={g.items} />
        <div className="grid gap-3 md:grid-cols-2 xl:grid-cols-3">
          {g.items.map((it) => (
            <Distribution key={`${it.item}#${it.testIndex}`} item={it} />
          ))}
        </div>
      </section>
      <section className="flex flex-col gap-3" aria-labelledby="disagreements-h">
        <h2 id="disagreements-h" className="text-lg font-semibold text-white">
          Disagreements to adjudicate ({open.length})
        </h2>
        {open.length === 0 && (
          <p className="rounded-lg border border-slate-800 p-4 text-sm text-slate-400">
            No disagreement between graders.
          </p>
        )}
        {open.map((a) => (
          <Adjudicate
            key={`${a.sessionId}|${a.item}|${a.testIndex}`}
            studyId={studyId}
            answer={a}
            item={g.items.find((i) => i.item === a.item && i.testIndex === a.testIndex)}
          />
        ))}
      </section>
      <FinalGrades studyId={studyId} overview={g} />
    </div>
  );
}

function Graders({ studyId, overview }: { studyId: string; overview: GradingOverview }) {
  const client = useQueryClient();
  const [label, setLabel] = useState('');
  const [link, setLink] = useState<{ label: string; url: string } | null>(null);
  const [copied, setCopied] = useState(false);
  const add = useMutation({
    mutationFn: () =>
      adminJson<NewGraderLink>(`/api/admin/studies/${encodeURIComponent(studyId)}/graders`, {
        method: 'POST',
        body: JSON.stringify({ label } satisfies GraderBody),
      }),
    onSuccess: (r) => {
      setLink({ label: r.grader.label, url: `${location.origin}${r.path}` });
      setCopied(false);
      setLabel('');
      void client.invalidateQueries({ queryKey: gradingQuery(studyId).queryKey });
    },
  });
  // The grader whose link is about to be revoked, asked about first: a revoked link cannot be restored.
  const [revoking, setRevoking] = useState<{ id: string; label: string } | null>(null);
  const revoke = useMutation({
    mutationFn: (id: string) =>
      adminJson(`/api/admin/studies/${encodeURIComponent(studyId)}/graders/${encodeURIComponent(id)}/revoke`, {
        method: 'POST',
      }),
    onSuccess: () => void client.invalidateQueries({ queryKey: gradingQuery(studyId).queryKey }),
  });
  const copy = async () => {
    if (!link) return;
    try {
      await navigator.clipboard.writeText(link.url);
      setCopied(true);
    } catch {
      setCopied(false);
    }
  };
  return (
    <section className="flex flex-col gap-3" aria-labelledby="graders-h">
      <h2 id="graders-h" className="text-lg font-semibold text-white">
        Graders
      </h2>
      <form
        className="flex flex-wrap items-end gap-2"
        onSubmit={(e) => {
          e.preventDefault();
          add.mutate();
        }}
      >
        <label className="flex flex-col gap-1 text-sm text-slate-300">
          Grader's name or label
          <input
            value={label}
            onChange={(e) => setLabel(e.target.value)}
            maxLength={100}
            placeholder="e.g. Grader A"
            className="h-8 w-64 rounded-md border border-slate-700 bg-slate-950 px-2 text-sm text-slate-100"
          />
        </label>
        <Button tone="primary" type="submit" disabled={add.isPending || label.trim() === ''}>
          Add grader
        </Button>
        {add.isError && (
          <span role="alert" className="text-sm text-rose-300">
            {(add.error as Error).message}
          </span>
        )}
      </form>
      {link && (
        <div
          className="flex flex-col gap-2 rounded-lg border border-emerald-800 bg-emerald-950/30 p-3 text-sm"
          data-testid="grader-link"
        >
          <p className="text-emerald-100">
            The link for <strong>{link.label}</strong>. It is shown only now: copy it and send it to the grader. Anyone
            with it can grade; revoke it below if it goes astray.
          </p>
          <div className="flex flex-wrap items-center gap-2">
            <input
              readOnly
              value={link.url}
              aria-label={`Grader link for ${link.label}`}
              onFocus={(e) => e.target.select()}
              className="h-8 min-w-0 flex-1 rounded-md border border-slate-700 bg-slate-950 px-2 font-mono text-xs text-slate-100"
            />
            <Button onClick={() => void copy()}>Copy link</Button>
            {copied && (
              <span role="status" className="text-emerald-300">
                Copied.
              </span>
            )}
          </div>
        </div>
      )}
      {overview.graders.length === 0 ? (
        <p className="rounded-lg border border-slate-800 p-4 text-sm text-slate-400">
          No grader yet. Add one to get a grading link.
        </p>
      ) : (
        <div className="overflow-x-auto rounded-lg border border-slate-800">
          <table className="w-full text-sm" aria-label="Graders">
            <thead className="bg-slate-900 text-xs uppercase tracking-wide text-slate-400">
              <tr>
                <th className="px-3 py-2 text-left">Grader</th>
                <th className="px-3 py-2 text-left">Progress</th>
                <th className="px-3 py-2 text-left">Added</th>
                <th className="px-3 py-2 text-left">Link</th>
              </tr>
            </thead>
            <tbody>
              {overview.graders.map((x) => (
                <tr key={x.id} className="border-t border-slate-800">
                  <td className="px-3 py-2 text-slate-100">{x.label}</td>
                  <td className="px-3 py-2">
                    <span className="flex items-center gap-2">
                      <span className="h-1.5 w-24 overflow-hidden rounded bg-slate-700">
                        <span
                          className="block h-full bg-emerald-400"
                          style={{ width: `${x.total ? (100 * x.graded) / x.total : 0}%` }}
                        />
                      </span>
                      <span className="tabular-nums text-slate-300" data-testid={`grader-progress-${x.label}`}>
                        {x.graded} of {x.total}
                      </span>
                    </span>
                  </td>
                  <td className="px-3 py-2 text-slate-300">{new Date(x.createdAt).toLocaleString()}</td>
                  <td className="px-3 py-2">
                    {x.revokedAt !== null ? (
                      <span className="text-slate-400">revoked</span>
                    ) : (
                      <Button
                        tone="ghost"
                        onClick={() => setRevoking({ id: x.id, label: x.label })}
                        disabled={revoke.isPending}
                        aria-label={`Revoke the link of ${x.label}`}
                      >
                        Revoke
                      </Button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {revoking && (
        <ConfirmDialog
          title={`Revoke the link of ${revoking.label}?`}
          confirmLabel="Revoke link"
          tone="danger"
          onConfirm={async () => {
            await revoke.mutateAsync(revoking.id);
            setRevoking(null);
          }}
          onClose={() => setRevoking(null)}
        >
          <p>
            The link stops working at once and cannot be restored: {revoking.label} can no longer grade. The grades
            already given are kept. To let them grade again, make a new link.
          </p>
        </ConfirmDialog>
      )}
    </section>
  );
}

function AgreementStats({ a, label }: { a: Agreement; label: string }) {
  return (
    <div className="flex flex-col gap-2">
      <p className="text-xs text-slate-400">{label}</p>
      <div className="grid grid-cols-2 gap-3 md:grid-cols-4">
        <Stat
          label="Pearson r (points)"
          value={<span data-testid="agreement-pearson">{fmt(a.pearson)}</span>}
          hint="Correlation of total points between graders, over the answers both graded (every pair of graders pooled)"
        />
        <Stat
          label="Cohen's kappa (pass)"
          value={<span data-testid="agreement-kappa">{fmt(a.kappa)}</span>}
          hint="Agreement on pass/fail beyond chance; undefined when every grade is the same"
        />
        <Stat label="Pass/fail agreement" value={formatPct(a.passAgreement)} />
        <Stat label="Pairs of grades" value={a.n} />
      </div>
    </div>
  );
}

function ItemsTable({ items }: { items: readonly GradingItemView[] }) {
  const columns: Column<GradingItemView>[] = [
    {
      key: 'item',
      label: 'Question',
      value: (i) => i.item,
      render: (i) => (
        <span className="font-mono">
          {i.item}
          {i.testIndex ? ` #${i.testIndex + 1}` : ''}{' '}
          <span className="text-xs text-slate-400">
            {i.question ? `${i.question.collection}/${i.question.id}` : i.problem}
          </span>
        </span>
      ),
    },
    { key: 'answers', label: 'Answers', value: (i) => i.answers, align: 'right' },
    { key: 'finals', label: 'Final', value: (i) => i.finals, align: 'right' },
    { key: 'dis', label: 'Disagreements', value: (i) => i.disagreements, align: 'right' },
    {
      key: 'r',
      label: 'Pearson r',
      value: (i) => i.agreement.pearson,
      render: (i) => fmt(i.agreement.pearson),
      align: 'right',
    },
    {
      key: 'k',
      label: 'Kappa',
      value: (i) => i.agreement.kappa,
      render: (i) => fmt(i.agreement.kappa),
      align: 'right',
    },
    { key: 'pass', label: 'Pass rate', value: (i) => i.passRate, render: (i) => formatPct(i.passRate), align: 'right' },
    {
      key: 'mean',
      label: 'Mean points',
      value: (i) => i.meanPoints,
      render: (i) => (i.meanPoints === null ? '–' : `${i.meanPoints} of ${i.question?.maxPoints ?? '?'}`),
      align: 'right',
    },
  ];
  return (
    <SortableTable
      label="Agreement per question"
      columns={columns}
      rows={items}
      rowKey={(i) => `${i.item}#${i.testIndex}`}
      empty="No answers to grade yet: no participant has given a free-response or symbolic answer."
    />
  );
}

function Distribution({ item }: { item: GradingItemView }) {
  const max = item.question?.maxPoints ?? 1;
  return (
    <figure
      className="rounded-lg border border-slate-800 bg-slate-900/60 p-3"
      aria-label={`Final scores of ${item.item}`}
    >
      <figcaption className="mb-2 flex items-baseline justify-between text-xs text-slate-400">
        <span className="font-semibold uppercase tracking-wide">
          {item.item}
          {item.testIndex ? ` #${item.testIndex + 1}` : ''}: final scores
        </span>
        <span>
          n={item.finals} · of {max} points
        </span>
      </figcaption>
      {item.distribution.length === 0 ? (
        <p className="py-6 text-center text-sm text-slate-400">No final grade yet.</p>
      ) : (
        <div className="h-36">
          <ResponsiveContainer width="100%" height="100%">
            <BarChart
              data={item.distribution.map((d) => ({ points: String(d.points), count: d.count }))}
              margin={{ top: 4, right: 4, bottom: 4, left: -20 }}
            >
              <CartesianGrid stroke="#1e293b" vertical={false} />
              <XAxis dataKey="points" tick={{ fill: '#94a3b8', fontSize: 11 }} stroke="#334155" />
              <YAxis allowDecimals={false} tick={{ fill: '#94a3b8', fontSize: 11 }} stroke="#334155" />
              <Tooltip
                contentStyle={{ background: '#0f172a', border: '1px solid #334155', color: '#e2e8f0' }}
                formatter={(v) => [v, 'answers']}
                labelFormatter={(l) => `${l} points`}
              />
              <Bar dataKey="count" fill="#34d399" isAnimationActive={false} />
            </BarChart>
          </ResponsiveContainer>
        </div>
      )}
    </figure>
  );
}

function Adjudicate({
  studyId,
  answer,
  item,
}: {
  studyId: string;
  answer: GradedAnswerView;
  item: GradingItemView | undefined;
}) {
  const client = useQueryClient();
  const [reason, setReason] = useState('');
  const q = item?.question;
  const save = async (grade: GradeInput) => {
    await adminJson(`/api/admin/studies/${encodeURIComponent(studyId)}/adjudications`, {
      method: 'POST',
      body: JSON.stringify({
        sessionId: answer.sessionId,
        item: answer.item,
        testIndex: answer.testIndex,
        grade,
        ...(reason.trim() ? { reason: reason.trim() } : {}),
      } satisfies AdjudicationBody),
    });
    await client.invalidateQueries({ queryKey: gradingQuery(studyId).queryKey });
  };
  return (
    <article
      className="grid gap-4 rounded-xl border border-amber-800/60 bg-amber-950/10 p-4 lg:grid-cols-2"
      aria-label={`Disagreement on ${answer.item}, session ${answer.sessionId.slice(0, 8)}`}
    >
      <div className="flex flex-col gap-3">
        <p className="text-sm text-slate-300">
          <span className="font-mono">{answer.item}</span> · session{' '}
          <Link
            href={`/studies/${encodeURIComponent(studyId)}/sessions/${answer.sessionId}`}
            className="font-mono text-sky-300 hover:underline"
          >
            {answer.sessionId.slice(0, 8)}
          </Link>
        </p>
        {q && <GradingQuestionView q={q} />}
        <div>
          <h3 className="mb-1 text-sm font-semibold text-slate-200">The answer</h3>
          <div className="whitespace-pre-wrap break-words rounded-lg border border-slate-700 bg-slate-950 p-3 font-mono text-sm text-slate-100">
            {answer.answer}
          </div>
        </div>
      </div>
      <div className="flex flex-col gap-3">
        <h3 className="text-sm font-semibold text-slate-200">The graders' grades</h3>
        <div className="overflow-x-auto rounded-lg border border-slate-800">
          <table className="w-full text-sm" aria-label={`Grades of ${answer.item}`}>
            <thead className="bg-slate-900 text-xs uppercase tracking-wide text-slate-400">
              <tr>
                <th className="px-3 py-2 text-left">Grader</th>
                {(q?.rubric?.criteria ?? []).map((_, i) => (
                  <th key={i} className="px-2 py-2 text-right">
                    C{i + 1}
                  </th>
                ))}
                <th className="px-3 py-2 text-right">Total</th>
                <th className="px-3 py-2 text-left">Pass</th>
                <th className="px-3 py-2 text-left">Note</th>
              </tr>
            </thead>
            <tbody>
              {answer.grades.map((gr) => (
                <tr key={gr.graderId} className="border-t border-slate-800 align-top">
                  <td className="px-3 py-2 text-slate-100">{gr.grader}</td>
                  {gr.criteria.map((c, i) => (
                    <td key={i} className="px-2 py-2 text-right tabular-nums" title={c.note || undefined}>
                      {c.points}
                    </td>
                  ))}
                  <td className="px-3 py-2 text-right tabular-nums">
                    {gr.points} / {gr.maxPoints}
                  </td>
                  <td className="px-3 py-2">{gr.pass ? 'pass' : 'fail'}</td>
                  <td className="px-3 py-2 text-slate-300">
                    {[gr.note, ...gr.criteria.map((c, i) => (c.note ? `C${i + 1}: ${c.note}` : ''))]
                      .filter(Boolean)
                      .join(' · ') || '–'}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
        <h3 className="text-sm font-semibold text-slate-200">Final grade</h3>
        {q ? (
          <GradeForm
            q={q}
            grade={null}
            onSave={save}
            saveLabel="Set final grade"
            extra={
              <label className="flex flex-col gap-1 text-sm text-slate-300">
                Reason, for the audit log (optional)
                <input
                  value={reason}
                  onChange={(e) => setReason(e.target.value)}
                  maxLength={500}
                  className="h-8 rounded-md border border-slate-700 bg-slate-950 px-2 text-sm text-slate-100"
                />
              </label>
            }
          />
        ) : (
          <p className="text-sm text-rose-300">{item?.problem ?? 'The question cannot be read.'}</p>
        )}
      </div>
    </article>
  );
}

function FinalGrades({ studyId, overview }: { studyId: string; overview: GradingOverview }) {
  const columns: Column<GradedAnswerView>[] = [
    {
      key: 'item',
      label: 'Question',
      value: (a) => `${a.item}#${a.testIndex}`,
      render: (a) => (
        <span className="font-mono">
          {a.item}
          {a.testIndex ? ` #${a.testIndex + 1}` : ''}
        </span>
      ),
    },
    {
      key: 'session',
      label: 'Session',
      value: (a) => a.sessionId,
      render: (a) => (
        <Link
          href={`/studies/${encodeURIComponent(studyId)}/sessions/${a.sessionId}`}
          className="font-mono text-sky-300 hover:underline"
        >
          {a.sessionId.slice(0, 8)}
        </Link>
      ),
    },
    { key: 'grades', label: 'Grades', value: (a) => a.grades.length, align: 'right' },
    {
      key: 'status',
      label: 'Status',
      value: (a) => a.status,
      render: (a) => (
        <span
          className={
            a.status === 'disagreement'
              ? 'text-amber-300'
              : a.status === 'final'
                ? 'text-emerald-300'
                : 'text-slate-400'
          }
        >
          {a.status === 'final' ? `final (${SOURCE[a.final?.source ?? ''] ?? ''})` : a.status}
        </span>
      ),
    },
    {
      key: 'points',
      label: 'Final points',
      value: (a) => a.final?.points ?? null,
      render: (a) => (a.final ? `${a.final.points} / ${a.final.maxPoints}` : '–'),
      align: 'right',
    },
    {
      key: 'pass',
      label: 'Pass',
      value: (a) => (a.final ? Number(a.final.pass) : null),
      render: (a) => (a.final ? (a.final.pass ? 'pass' : 'fail') : '–'),
    },
  ];
  return (
    <section className="flex flex-col gap-3" aria-labelledby="finals-h">
      <h2 id="finals-h" className="text-lg font-semibold text-white">
        Answers and final grades
      </h2>
      <SortableTable
        label="Answers and final grades"
        columns={columns}
        rows={overview.answers}
        rowKey={(a) => `${a.sessionId}|${a.item}|${a.testIndex}`}
        empty="No answers to grade yet."
      />
    </section>
  );
}
