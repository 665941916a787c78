import { useId, useState } from 'react';
import { WITHDRAW_REASONS, type WithdrawReason } from '../../core/protocol/api';
import { WITHDRAW_COMMENT_MAX } from '../../core/protocol/requests';
import { Button } from '../ui/Button';
import { Modal } from '../ui/Modal';

/**
 * Withdrawing from the study: a reason from the list, an optional comment, and a confirmation.
 * `onWithdraw` ends the session; a thrown error is shown and the dialog stays open.
 */
export function WithdrawDialog({
  onWithdraw,
  onCancel,
}: {
  onWithdraw: (reason: WithdrawReason, comment: string) => Promise<void>;
  onCancel: () => void;
}) {
  const ids = useId();
  const [reason, setReason] = useState<WithdrawReason | null>(null);
  const [comment, setComment] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const confirm = async () => {
    if (!reason) return setError('Choose a reason first (or "Another reason").');
    setBusy(true);
    setError(null);
    try {
      await onWithdraw(reason, comment.trim());
    } catch (e) {
      setError((e as Error).message);
      setBusy(false);
    }
  };
  return (
    <Modal
      labelledBy={`${ids}-title`}
      describedBy={`${ids}-text`}
      onEscape={busy ? undefined : onCancel}
      testId="withdraw-dialog"
    >
      <h2 id={`${ids}-title`} className="text-xl font-semibold text-white">
        Withdraw from the study?
      </h2>
      <p id={`${ids}-text`} className="mt-2 text-sm text-slate-300">
        You may stop at any time without giving a reason. If you withdraw, the study ends here and you cannot come back
        to it. What you did so far is kept unless you ask the researcher to delete it.
      </p>
      <form
        className="mt-4 flex flex-col gap-4"
        onSubmit={(e) => {
          e.preventDefault();
          void confirm();
        }}
      >
        <fieldset className="flex flex-col gap-1.5" disabled={busy}>
          <legend className="mb-1 text-sm text-slate-200">Why are you withdrawing?</legend>
          {(Object.entries(WITHDRAW_REASONS) as [WithdrawReason, string][]).map(([value, text]) => (
            <label key={value} className="flex cursor-pointer items-center gap-2 text-sm text-slate-100">
              <input
                type="radio"
                name={`${ids}-reason`}
                value={value}
                checked={reason === value}
                onChange={() => {
                  setReason(value);
                  setError(null);
                }}
              />
              {text}
            </label>
          ))}
        </fieldset>
        <label className="flex flex-col gap-1 text-sm text-slate-300">
          Comment (optional)
          <textarea
            className="min-h-20 w-full rounded-md border border-slate-700 bg-slate-950 px-3 py-2 text-slate-100 focus:border-sky-500 focus:outline-none focus:ring-2 focus:ring-sky-500"
            maxLength={WITHDRAW_COMMENT_MAX}
            value={comment}
            disabled={busy}
            onChange={(e) => setComment(e.target.value)}
          />
        </label>
        {error && (
          <p role="alert" className="text-sm text-rose-300">
            {error}
          </p>
        )}
        <div className="flex flex-wrap justify-end gap-2">
          <Button onClick={onCancel} disabled={busy}>
            Keep going
          </Button>
          <button
            type="submit"
            disabled={busy}
            className="inline-flex h-8 items-center rounded-md border border-rose-500 bg-rose-800 px-2.5 text-sm font-semibold text-white hover:bg-rose-700 disabled:opacity-40"
          >
            {busy ? 'Withdrawing…' : 'Withdraw'}
          </button>
        </div>
      </form>
    </Modal>
  );
}
