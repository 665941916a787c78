/**
 * Data requests (docs/researchers.md, "Deletion requests"): a researcher finds every session of
 * one participant id across the studies they manage, deletes all of it in one action with a
 * reason, and gets a receipt to send the participant (a page to print and a JSON file), with the
 * exports made earlier that may hold the data, to recall.
 */
import { useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useParams } from 'wouter';
import type { DeletionReceipt, ParticipantSearch } from '../../core/protocol/api';
import { downloadText } from '../log/sessionLog';
import { Button } from '../ui/Button';
import { ConfirmDialog } from '../ui/ConfirmDialog';
import { adminJson } from './auth';
import { deletionReceiptQuery, deletionReceiptsQuery } from './queries';
import { RequireResearcher } from './RequireResearcher';

const field =
  'w-full rounded-md border border-slate-700 bg-slate-950 px-2 py-1.5 text-sm text-slate-100 focus:outline-none focus:ring-2 focus:ring-sky-500';
const when = (ms: number) => new Date(ms).toISOString().replace('T', ' ').slice(0, 19) + ' UTC';

export function DataRequestsPage() {
  return (
    <RequireResearcher>
      <DataRequests />
    </RequireResearcher>
  );
}

export function DeletionReceiptPage() {
  return (
    <RequireResearcher>
      <ReceiptRoute />
    </RequireResearcher>
  );
}

function DataRequests() {
  const qc = useQueryClient();
  const [id, setId] = useState('');
  const [found, setFound] = useState<{ id: string; search: ParticipantSearch } | null>(null);
  const [reason, setReason] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [confirming, setConfirming] = useState(false);
  const [receipt, setReceipt] = useState<DeletionReceipt | null>(null);
  const receipts = useQuery(deletionReceiptsQuery);

  const find = async () => {
    setError(null);
    setReceipt(null);
    try {
      const search = await adminJson<ParticipantSearch>('/api/admin/participants/find', {
        method: 'POST',
        body: JSON.stringify({ participantId: id.trim() }),
      });
      setFound({ id: id.trim(), search });
    } catch (e) {
      setFound(null);
      setError((e as Error).message);
    }
  };
  const remove = async () => {
    if (!found) return;
    const r = await adminJson<DeletionReceipt>('/api/admin/participants/delete', {
      method: 'POST',
      body: JSON.stringify({ participantId: found.id, reason: reason.trim(), confirm: found.id }),
    });
    setReceipt(r);
    setFound(null);
    setId('');
    setReason('');
    await qc.invalidateQueries({ queryKey: ['admin'] });
  };
  const sessions = found?.search.studies.reduce((n, s) => n + s.sessions.length, 0) ?? 0;

  return (
    <div className="h-full overflow-y-auto">
      <div className="mx-auto flex max-w-5xl flex-col gap-5 p-6">
        <h1 className="text-xl font-semibold text-white">Data requests</h1>
        <p className="text-sm text-slate-300">
          Find every session of one participant (their Prolific id, worker id or participant id, as the study link
          carried it) in the studies you manage, and delete all of it in one action. The audit trail and the receipt
          name the participant by a keyed hash of the id, never by the id.
        </p>
        <form
          className="flex flex-wrap items-end gap-2"
          onSubmit={(e) => {
            e.preventDefault();
            void find();
          }}
        >
          <label className="flex min-w-64 flex-1 flex-col gap-1 text-sm text-slate-300">
            Participant id
            <input
              className={`${field} font-mono`}
              value={id}
              maxLength={200}
              autoComplete="off"
              spellCheck={false}
              onChange={(e) => setId(e.target.value)}
            />
          </label>
          <button
            type="submit"
            disabled={id.trim() === ''}
            className="h-8 rounded-md border border-sky-500 bg-sky-700 px-3 text-sm font-semibold text-white hover:bg-sky-800 disabled:opacity-40"
          >
            Find
          </button>
        </form>
        {error && (
          <p role="alert" className="rounded-md border border-rose-700 bg-rose-950/60 p-2 text-sm text-rose-200">
            {error}
          </p>
        )}
        {found && found.search.studies.length === 0 && (
          <p role="status" className="text-sm text-slate-300">
            No session holds <code className="font-mono">{found.id}</code> in the studies you manage. Check the id as
            the participant gave it.
          </p>
        )}
        {found && found.search.studies.length > 0 && (
          <section aria-label="Sessions found" className="flex flex-col gap-3">
            <p role="status" className="text-sm text-slate-200">
              {sessions} session{sessions === 1 ? '' : 's'} in {found.search.studies.length}{' '}
              {found.search.studies.length === 1 ? 'study' : 'studies'}.
            </p>
            <StudiesTable studies={found.search.studies} />
            <label className="flex flex-col gap-1 text-sm text-slate-300">
              Reason (required; in the audit trail and on the receipt)
              <textarea
                className={`${field} min-h-16`}
                maxLength={500}
                value={reason}
                onChange={(e) => setReason(e.target.value)}
              />
            </label>
            <div>
              <button
                type="button"
                disabled={reason.trim() === ''}
                onClick={() => setConfirming(true)}
                className="rounded-md border border-rose-500 bg-rose-800 px-3 py-1.5 text-sm font-semibold text-white hover:bg-rose-700 disabled:cursor-not-allowed disabled:opacity-40"
              >
                Delete all of it
              </button>
            </div>
          </section>
        )}
        {confirming && found && (
          <ConfirmDialog
            title="Delete this participant's data?"
            confirmLabel="Delete permanently"
            tone="danger"
            typeToConfirm={found.id}
            onConfirm={remove}
            onClose={() => setConfirming(false)}
          >
            <p>
              Every session listed, with its events, answers, game runs and steps, grades and campaign claims, is
              deleted at once, and cannot be brought back. Exports made earlier are not changed: recall them.
            </p>
          </ConfirmDialog>
        )}
        {receipt && <Receipt receipt={receipt} />}
        <section aria-label="Earlier deletions" className="flex flex-col gap-2">
          <h2 className="text-base font-semibold text-white">Earlier deletions</h2>
          {receipts.data?.length === 0 && <p className="text-sm text-slate-400">None yet.</p>}
          <ul className="flex flex-col gap-1 text-sm">
            {receipts.data?.map((r) => (
              <li key={r.receipt}>
                <Link href={`/data-requests/${r.receipt}`} className="text-sky-300 underline">
                  {when(r.at)}
                </Link>{' '}
                <span className="text-slate-400">
                  {r.total.sessions} session{r.total.sessions === 1 ? '' : 's'} in {r.studies.length}{' '}
                  {r.studies.length === 1 ? 'study' : 'studies'}, by {r.by}
                </span>
              </li>
            ))}
          </ul>
        </section>
      </div>
    </div>
  );
}

function StudiesTable({ studies }: { studies: ParticipantSearch['studies'] }) {
  return (
    <table className="w-full text-left text-sm">
      <thead className="text-slate-400">
        <tr>
          <th className="py-1 pr-3 font-normal">Study</th>
          <th className="py-1 pr-3 font-normal">Sessions</th>
          <th className="py-1 font-normal">Exports made since (to recall)</th>
        </tr>
      </thead>
      <tbody>
        {studies.map((s) => (
          <tr key={s.studyId} className="border-t border-slate-800 align-top">
            <td className="py-1 pr-3 text-slate-100">
              {s.title} <span className="font-mono text-xs text-slate-500">{s.studyId}</span>
            </td>
            <td className="py-1 pr-3 text-slate-200">
              {s.sessions.map((x) => (
                <div key={x.sessionId} className="text-xs">
                  {when(x.createdAt)} · {x.stage} · {x.state}
                </div>
              ))}
            </td>
            <td className="py-1">
              <Exports exports={s.exports} />
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function Exports({ exports }: { exports: DeletionReceipt['studies'][number]['exports'] }) {
  if (exports.length === 0) return <span className="text-xs text-slate-400">none</span>;
  return (
    <ul className="text-xs text-slate-200">
      {exports.map((e) => (
        <li key={`${e.sha256}-${e.at}`}>
          {e.file} ({e.format}, {when(e.at)}){' '}
          <span className="break-all font-mono text-slate-400">SHA-256 {e.sha256}</span>
        </li>
      ))}
    </ul>
  );
}

function ReceiptRoute() {
  const { receiptId } = useParams<{ receiptId: string }>();
  const q = useQuery(deletionReceiptQuery(receiptId));
  return (
    <div className="h-full overflow-y-auto">
      <div className="mx-auto flex max-w-5xl flex-col gap-4 p-6">
        <Link href="/data-requests" className="text-sm text-slate-400 hover:text-white">
          Data requests
        </Link>
        {q.isError && (
          <p role="alert" className="text-rose-300">
            {(q.error as Error).message}
          </p>
        )}
        {q.data && <Receipt receipt={q.data} />}
      </div>
    </div>
  );
}

/** A deletion's receipt, as the researcher sends it: what was deleted, when, why, and the exports to recall. */
function Receipt({ receipt: r }: { receipt: DeletionReceipt }) {
  return (
    <section aria-label="Deletion receipt" className="rounded-lg border border-emerald-700 bg-emerald-950/30 p-4">
      <h2 className="text-base font-semibold text-white">Receipt of deletion</h2>
      <dl className="mt-2 grid grid-cols-[auto_1fr] gap-x-4 gap-y-1 text-sm">
        <dt className="text-slate-400">Receipt</dt>
        <dd className="font-mono text-slate-100" data-testid="receipt-id">
          {r.receipt}
        </dd>
        <dt className="text-slate-400">Deleted</dt>
        <dd className="text-slate-100">
          {when(r.at)} by {r.by}
        </dd>
        <dt className="text-slate-400">Reason</dt>
        <dd className="text-slate-100">{r.reason}</dd>
        <dt className="text-slate-400">Participant (keyed SHA-256)</dt>
        <dd className="break-all font-mono text-xs text-slate-100">{r.participantHash}</dd>
        <dt className="text-slate-400">Removed</dt>
        <dd className="text-slate-100" data-testid="receipt-total">
          {r.total.sessions} sessions, {r.total.events} events, {r.total.submissions} submissions, {r.total.gameRuns}{' '}
          game runs ({r.total.gameSteps} steps)
        </dd>
      </dl>
      <table className="mt-3 w-full text-left text-sm">
        <thead className="text-slate-400">
          <tr>
            <th className="py-1 pr-3 font-normal">Study</th>
            <th className="py-1 pr-3 font-normal">Sessions deleted</th>
            <th className="py-1 font-normal">Exports made earlier (to recall)</th>
          </tr>
        </thead>
        <tbody>
          {r.studies.map((s) => (
            <tr key={s.studyId} className="border-t border-slate-800 align-top">
              <td className="py-1 pr-3 text-slate-100">
                {s.title} <span className="font-mono text-xs text-slate-500">{s.studyId}</span>
              </td>
              <td className="py-1 pr-3 text-slate-100">{s.deleted.sessions}</td>
              <td className="py-1">
                <Exports exports={s.exports} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <div className="mt-3 flex gap-2">
        <Button
          tone="ghost"
          onClick={() =>
            downloadText(`deletion-${r.receipt}.json`, `${JSON.stringify(r, null, 2)}\n`, 'application/json')
          }
        >
          Download the receipt (JSON)
        </Button>
        <Link href={`/data-requests/${r.receipt}`} className="self-center text-sm text-sky-300 underline">
          The receipt's own page
        </Link>
      </div>
    </section>
  );
}
