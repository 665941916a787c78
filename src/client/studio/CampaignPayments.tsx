/**
 * A campaign's payments: each session's bonus and signals, what the Prolific bonus file pays and
 * the sessions it leaves apart (with why), of the stage the campaign page counts.
 */
import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { paymentsCsv } from '../../core/analysis/campaign';
import { downloadText } from '../log/sessionLog';
import { Button } from '../ui/Button';
import { adminText } from './auth';
import { figuresQuery, paymentsQuery, type SessionPayment } from './queries';
import { FlagBadges } from './SignalList';
import { SortableTable, type Column } from './widgets';

const REASONS: Record<NonNullable<SessionPayment['reason']>, string> = {
  excluded: 'excluded',
  flagged: 'flagged',
  no_participant_id: 'no participant id',
  not_finished: 'not finished',
};

const money = (currency: string, n: number) => new Intl.NumberFormat('en', { style: 'currency', currency }).format(n);

export function Payments({ studyId, stage }: { studyId: string; stage: string | null }) {
  const q = useQuery(paymentsQuery(studyId, stage));
  const [error, setError] = useState<string | null>(null);
  const p = q.data;
  const bonusFile = async () => {
    setError(null);
    try {
      downloadText(
        `${studyId}-bonuses.csv`,
        await adminText(
          `/api/admin/studies/${encodeURIComponent(studyId)}/campaign/bonuses.csv${figuresQuery(null, stage)}`,
        ),
        'text/csv',
      );
    } catch (e) {
      setError(`The bonus file could not be made: ${(e as Error).message}`);
    }
  };
  const counted = p?.sessions.filter((s) => s.counts) ?? [];
  const apart = p?.sessions.filter((s) => !s.counts) ?? [];
  const columns = (currency: string, fee: number): Column<SessionPayment>[] => [
    {
      key: 'who',
      label: 'Participant',
      value: (s) => s.participant ?? '',
      render: (s) => (
        <span className="font-mono">
          {s.participant ?? <span className="text-slate-400">none ({s.sessionId.slice(0, 8)})</span>}
        </span>
      ),
    },
    { key: 'solved', label: 'Solved', value: (s) => s.solved, align: 'right' },
    { key: 'levels', label: 'Levels', value: (s) => s.levels, align: 'right' },
    { key: 'fee', label: 'Fee', value: () => fee, render: () => money(currency, fee), align: 'right' },
    { key: 'bonus', label: 'Bonus', value: (s) => s.bonus, render: (s) => money(currency, s.bonus), align: 'right' },
    {
      key: 'signals',
      label: 'Signals',
      value: (s) => s.signals.join(','),
      render: (s) => <FlagBadges flags={s.signals} />,
    },
    {
      key: 'reason',
      label: 'Why apart',
      value: (s) => s.reason ?? '',
      render: (s) =>
        s.reason ? (
          <span className="rounded bg-amber-600/30 px-1.5 py-0.5 text-xs text-amber-100">{REASONS[s.reason]}</span>
        ) : null,
    },
  ];
  return (
    <section className="flex flex-col gap-3" aria-labelledby="payments-title">
      <div className="flex flex-wrap items-center gap-2">
        <h2 id="payments-title" className="font-semibold text-white">
          Payments
        </h2>
        {p && (
          <span className="text-sm text-slate-300" data-testid="payments-total">
            Bonus file total {money(p.currency, p.total)} over {counted.length} session{counted.length === 1 ? '' : 's'}{' '}
            · fee {money(p.currency, p.fee)} each
          </span>
        )}
        <div className="ml-auto flex gap-2">
          <Button tone="primary" onClick={() => void bonusFile()}>
            Download the bonus file (bonuses.csv)
          </Button>
          <Button
            disabled={!p}
            onClick={() => p && downloadText(`${studyId}-payments.csv`, paymentsCsv(p), 'text/csv')}
          >
            Download payments (CSV)
          </Button>
        </div>
      </div>
      <p className="text-xs text-slate-400">
        The bonus file has one line per participant with a bonus,{' '}
        <span className="font-mono">participant_id,amount</span> (the bonuses of their counted sessions summed), as
        Prolific’s bulk bonus accepts it. Excluded, flagged and unfinished sessions are listed apart for you to decide;
        signals of help and low effort are listed beside each session and in the payments file, and hold nothing back.
      </p>
      {error && (
        <p role="alert" className="text-sm text-rose-300">
          {error}
        </p>
      )}
      {q.isError && (
        <p role="alert" className="text-sm text-rose-300">
          The payments cannot be shown: {q.error.message}
        </p>
      )}
      {p && (
        <div className="grid gap-4 lg:grid-cols-2">
          <div className="flex flex-col gap-1">
            <h3 className="text-xs font-semibold uppercase tracking-wide text-slate-400">
              Counted: paid by the bonus file ({counted.length})
            </h3>
            <SortableTable
              label="Counted sessions"
              columns={columns(p.currency, p.fee).filter((c) => c.key !== 'reason')}
              rows={counted}
              rowKey={(s) => s.sessionId}
              pageSize={20}
              empty="No session counts yet."
            />
          </div>
          <div className="flex flex-col gap-1">
            <h3 className="text-xs font-semibold uppercase tracking-wide text-slate-400">
              Listed apart: for you to decide ({apart.length})
            </h3>
            <SortableTable
              label="Sessions listed apart"
              columns={columns(p.currency, p.fee)}
              rows={apart}
              rowKey={(s) => s.sessionId}
              pageSize={20}
              empty="No session is excluded, flagged or unfinished."
            />
          </div>
        </div>
      )}
    </section>
  );
}
