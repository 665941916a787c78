/**
 * The campaign page's Prolific panel: whether a Prolific API token is set (entered here, never
 * shown again), "Pay bonuses" (safe to press again: the server pays only what is unpaid), "Check
 * Prolific" for returns and time-outs, and the bonus ledger, per participant, with Prolific's ids.
 */
import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { LedgerParticipant, PayBonusesResult, PaymentsView } from '../../core/protocol/campaign';
import { downloadText } from '../log/sessionLog';
import { Button } from '../ui/Button';
import { adminJson, adminText } from './auth';
import { paymentsQuery } from './queries';
import { SortableTable, type Column } from './widgets';

interface ProlificStatus {
  readonly apiUrl: string;
  readonly token: { readonly set: boolean; readonly source: 'studio' | 'env' | null };
}

const STATE_TEXT: Record<LedgerParticipant['state'], string> = {
  paid: 'paid',
  unpaid: 'not paid yet',
  pending: 'on its way',
  unconfirmed: 'sent, not confirmed by Prolific yet',
};

export function ProlificPanel({ studyId }: { studyId: string }) {
  const client = useQueryClient();
  const status = useQuery({
    queryKey: ['admin', 'prolific'],
    queryFn: () => adminJson<ProlificStatus>('/api/admin/prolific'),
  });
  const payments = useQuery(paymentsQuery(studyId));
  const [token, setToken] = useState('');
  const [message, setMessage] = useState<string | null>(null);
  const base = `/api/admin/studies/${encodeURIComponent(studyId)}`;

  const saveToken = useMutation({
    mutationFn: () => adminJson('/api/admin/prolific/token', { method: 'PUT', body: JSON.stringify({ value: token }) }),
    onSuccess: () => {
      setToken('');
      setMessage('The Prolific token is set.');
      void client.invalidateQueries({ queryKey: ['admin', 'prolific'] });
    },
    onError: (e) => setMessage(`The token was not saved: ${(e as Error).message}`),
  });
  const pay = useMutation({
    mutationFn: () => adminJson<PayBonusesResult>(`${base}/campaign/bonuses/pay`, { method: 'POST' }),
    onSuccess: (r) => {
      const parts = [`Paid ${r.paid} participant${r.paid === 1 ? '' : 's'} (${r.amount.toFixed(2)}).`];
      if (r.notOnProlific.length)
        parts.push(`Not in the Prolific study, so not paid: ${r.notOnProlific.slice(0, 10).join(', ')}.`);
      parts.push(...r.errors);
      setMessage(parts.join(' '));
      void client.invalidateQueries({ queryKey: paymentsQuery(studyId).queryKey });
    },
    onError: (e) => setMessage(`Nothing was paid: ${(e as Error).message}`),
  });
  const sync = useMutation({
    mutationFn: () =>
      adminJson<{ returned: number; timedOut: number; ended: string[] }>(`${base}/prolific/sync`, { method: 'POST' }),
    onSuccess: (r) =>
      setMessage(
        `Prolific: ${r.returned} returned, ${r.timedOut} timed out; ${r.ended.length} session${r.ended.length === 1 ? '' : 's'} ended now.`,
      ),
    onError: (e) => setMessage(`Prolific could not be checked: ${(e as Error).message}`),
  });

  const p: PaymentsView | undefined = payments.data;
  const ledger = p?.ledger;
  const columns: Column<LedgerParticipant>[] = [
    {
      key: 'who',
      label: 'Participant',
      value: (r) => r.participant_id,
      render: (r) => <span className="font-mono">{r.participant_id}</span>,
    },
    { key: 'amount', label: 'Bonus', value: (r) => r.amount, render: (r) => r.amount.toFixed(2), align: 'right' },
    {
      key: 'paid',
      label: 'Paid',
      value: (r) => r.paid_amount,
      render: (r) => r.paid_amount.toFixed(2),
      align: 'right',
    },
    { key: 'state', label: 'State', value: (r) => r.state, render: (r) => STATE_TEXT[r.state] },
    {
      key: 'sub',
      label: 'Submission',
      value: (r) => r.submission_id ?? '',
      render: (r) => <span className="font-mono text-xs">{r.submission_id ?? ''}</span>,
    },
    {
      key: 'bulk',
      label: 'Bulk bonus',
      value: (r) => r.bulk_bonus_ids.join(' '),
      render: (r) => <span className="font-mono text-xs">{r.bulk_bonus_ids.join(' ')}</span>,
    },
  ];
  const tokenText = !status.data
    ? ''
    : status.data.token.set
      ? `A Prolific token is set (${status.data.token.source === 'env' ? 'by the server' : 'in the studio'}).`
      : 'No Prolific token is set.';

  return (
    <section className="flex flex-col gap-3" aria-labelledby="prolific-title" data-testid="prolific-panel">
      <div className="flex flex-wrap items-center gap-2">
        <h2 id="prolific-title" className="font-semibold text-white">
          Prolific
        </h2>
        <span className="text-sm text-slate-300" data-testid="prolific-token-state">
          {tokenText}
        </span>
        <div className="ml-auto flex gap-2">
          <Button tone="primary" disabled={pay.isPending || !ledger?.prolific_study_id} onClick={() => pay.mutate()}>
            {pay.isPending ? 'Paying…' : 'Pay bonuses'}
          </Button>
          <Button disabled={sync.isPending || !ledger?.prolific_study_id} onClick={() => sync.mutate()}>
            Check Prolific
          </Button>
          <Button
            onClick={() =>
              void adminText(`${base}/campaign/ledger.csv`)
                .then((text) => downloadText(`${studyId}-bonus-ledger.csv`, text, 'text/csv'))
                .catch((e: Error) => setMessage(`The ledger could not be made: ${e.message}`))
            }
          >
            Download ledger
          </Button>
        </div>
      </div>
      {ledger && !ledger.prolific_study_id && (
        <p className="text-xs text-slate-400">
          This study names no Prolific study: add <span className="font-mono">"prolific": {'{"studyId": "…"}'}</span> to
          its definition to pay bonuses and follow returns from here.
        </p>
      )}
      <form
        className="flex flex-wrap items-center gap-2 text-sm"
        onSubmit={(e) => {
          e.preventDefault();
          if (token.trim().length >= 8) saveToken.mutate();
        }}
      >
        <label htmlFor="prolific-token" className="text-slate-300">
          Prolific token
        </label>
        <input
          id="prolific-token"
          type="password"
          autoComplete="off"
          className="rounded border border-slate-700 bg-slate-950 px-2 py-1 text-slate-100"
          value={token}
          onChange={(e) => setToken(e.target.value)}
        />
        <Button type="submit" disabled={token.trim().length < 8 || saveToken.isPending}>
          Save token
        </Button>
        <span className="text-xs text-slate-400">Stored sealed; never shown again.</span>
      </form>
      {message && (
        <p role="status" className="text-sm text-slate-200" data-testid="prolific-message">
          {message}
        </p>
      )}
      {ledger && (
        <>
          <p className="text-sm text-slate-300" data-testid="ledger-summary">
            {ledger.participants.filter((r) => r.paid).length} of {ledger.participants.length} participants paid ·
            unpaid {ledger.unpaid.toFixed(2)}
          </p>
          <SortableTable
            label="Bonus ledger"
            columns={columns}
            rows={ledger.participants}
            rowKey={(r) => r.participant_id}
            pageSize={20}
            empty="No bonus is owed yet."
          />
        </>
      )}
    </section>
  );
}
