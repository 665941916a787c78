/**
 * A testing centre's check-out: the day's payout sheet (each participant's fee, solves, bonus and
 * total, by the study's payment rule as the Prolific bonus file applies it), printable and as CSV,
 * and one participant's slip (`?session=<id>`), printable alone.
 */
import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { Link, useParams, useSearch } from 'wouter';
import type { PayoutSlip, PayoutsView } from '../../core/protocol/centre';
import { downloadText } from '../log/sessionLog';
import { adminText } from '../studio/auth';
import { RequireResearcher } from '../studio/RequireResearcher';
import { Button } from '../ui/Button';
import { type Column, Table } from '../ui/Table';
import { payoutsCsvUrl, payoutsQuery } from './api';

export function PayoutsPage() {
  return (
    <RequireResearcher>
      <Payouts />
    </RequireResearcher>
  );
}

const money = (n: number, currency: string) => `${n.toFixed(2)} ${currency}`;
const today = () => new Date().toISOString().slice(0, 10);

function Payouts() {
  const { studyId } = useParams<{ studyId: string }>();
  const search = new URLSearchParams(useSearch());
  const slipOf = search.get('session');
  const [day, setDay] = useState<string>(search.get('day') ?? today());
  const q = useQuery(payoutsQuery(studyId, day || null));
  const [error, setError] = useState<string | null>(null);
  const sheet = q.data;
  const slip = slipOf ? sheet?.slips.find((s) => s.sessionId === slipOf) : undefined;

  if (slipOf && sheet)
    return (
      <div className="h-full overflow-y-auto p-6">
        {slip ? (
          <Slip slip={slip} />
        ) : (
          <p role="alert">
            No slip of session {slipOf} on {day}.
          </p>
        )}
        <div className="mt-4 flex gap-2 print:hidden">
          <Button onClick={() => window.print()}>Print</Button>
          <Link
            href={`/studies/${encodeURIComponent(studyId)}/centre/payouts?day=${day}`}
            className="text-sky-300 underline"
          >
            Back to the sheet
          </Link>
        </div>
      </div>
    );
  return (
    <div className="h-full overflow-y-auto p-4 sm:p-6">
      <div className="flex flex-wrap items-end gap-3 print:hidden">
        <h1 className="text-xl font-semibold text-white">Payout sheet</h1>
        <label className="text-sm text-slate-300">
          Day (UTC)
          <input
            type="date"
            className="ml-2 rounded-md border border-slate-600 bg-slate-950 px-2 py-1 text-white"
            value={day}
            onChange={(e) => setDay(e.target.value)}
          />
        </label>
        <Button onClick={() => window.print()}>Print</Button>
        <Button
          onClick={async () => {
            try {
              downloadText(
                `${studyId}-payouts-${day}.csv`,
                await adminText(payoutsCsvUrl(studyId, day || null)),
                'text/csv',
              );
            } catch (e) {
              setError((e as Error).message);
            }
          }}
        >
          Download CSV
        </Button>
        <Link href={`/studies/${encodeURIComponent(studyId)}/centre`} className="text-sm text-sky-300 underline">
          Console
        </Link>
      </div>
      <h2 className="mt-2 hidden text-lg font-semibold print:block">
        Payout sheet: {studyId}, {day}
      </h2>
      {(error || q.error) && (
        <p role="alert" className="mt-3 text-rose-200">
          {error ?? (q.error as Error).message}
        </p>
      )}
      {sheet && (
        <Table
          caption="Payout sheet"
          className="mt-4"
          testId="payout-sheet"
          rowTestId="payout-row"
          rows={sheet.slips}
          rowKey={(s) => s.sessionId}
          columns={payoutColumns(studyId, day, sheet)}
        />
      )}
    </div>
  );
}

/** The sheet's columns: a participant's slip a row, the day's totals in the footer. */
function payoutColumns(studyId: string, day: string, sheet: PayoutsView): Column<PayoutSlip>[] {
  return [
    { header: 'Participant', cell: (s) => s.participant, footer: `Total (${sheet.slips.length})` },
    { header: 'Station', cell: (s) => s.station },
    { header: 'Fee', numeric: true, cell: (s) => s.fee.toFixed(2), footer: sheet.totals.fee.toFixed(2) },
    { header: 'Solves', numeric: true, cell: (s) => s.solves },
    { header: 'Bonus', numeric: true, cell: (s) => s.bonus.toFixed(2), footer: sheet.totals.bonus.toFixed(2) },
    {
      header: 'Total',
      numeric: true,
      testId: 'payout-total',
      cell: (s) => s.total.toFixed(2),
      footer: <span data-testid="payout-sum">{money(sheet.totals.total, sheet.currency)}</span>,
    },
    { header: 'Note', className: 'text-xs text-slate-400', cell: (s) => s.withheld ?? '' },
    {
      header: 'Slip',
      hideHeader: true,
      className: 'print:hidden',
      cell: (s) => (
        <Link
          href={`/studies/${encodeURIComponent(studyId)}/centre/payouts?day=${day}&session=${s.sessionId}`}
          className="text-sky-300 underline"
          aria-label={`Slip of ${s.participant}`}
        >
          Slip
        </Link>
      ),
    },
  ];
}

function Slip({ slip }: { slip: PayoutSlip }) {
  return (
    <section
      className="max-w-sm rounded-lg border border-slate-700 bg-slate-900 p-5 text-slate-100 print:border-black print:bg-white print:text-black"
      aria-label="Payout slip"
      data-testid="payout-slip"
    >
      <h1 className="text-lg font-semibold">Payout slip</h1>
      <dl className="mt-3 grid grid-cols-[auto_1fr] gap-x-4 gap-y-1 text-sm">
        <dt>Participant</dt>
        <dd>{slip.participant}</dd>
        <dt>Station</dt>
        <dd>{slip.station}</dd>
        <dt>Fee</dt>
        <dd>{money(slip.fee, slip.currency)}</dd>
        <dt>Solves</dt>
        <dd>{slip.solves}</dd>
        <dt>Bonus</dt>
        <dd>{money(slip.bonus, slip.currency)}</dd>
        <dt className="font-semibold">Total</dt>
        <dd className="font-semibold">{money(slip.total, slip.currency)}</dd>
      </dl>
      {slip.withheld && <p className="mt-2 text-xs">No bonus yet: {slip.withheld}.</p>}
    </section>
  );
}
