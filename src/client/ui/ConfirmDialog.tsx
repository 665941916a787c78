import { useId, useState, type ReactNode } from 'react';
import { Modal } from './Modal';

export interface ConfirmDialogProps {
  readonly title: string;
  /** What the action does and what cannot be undone. */
  readonly children: ReactNode;
  readonly confirmLabel: string;
  /** `danger`: a permanent action (red confirm button). */
  readonly tone?: 'danger' | 'default';
  /** The text the researcher must type before the confirm button works (e.g. the id being deleted). */
  readonly typeToConfirm?: string;
  /** Offers an optional reason field, passed to `onConfirm`. */
  readonly askReason?: boolean;
  /** Runs the action; a thrown error is shown in the dialog, which stays open. */
  readonly onConfirm: (reason: string) => Promise<void>;
  readonly onClose: () => void;
}

/**
 * A modal confirmation (`Modal`): labelled by its title and described by its text; Escape, a
 * click beside it or Cancel closes it unless the action is running.
 *
 * @example
 * <ConfirmDialog title="Delete this session?" confirmLabel="Delete session" tone="danger"
 *   typeToConfirm={id} onConfirm={() => remove(id)} onClose={close}>It cannot be undone.</ConfirmDialog>
 */
export function ConfirmDialog({
  title,
  children,
  confirmLabel,
  tone = 'default',
  typeToConfirm,
  askReason,
  onConfirm,
  onClose,
}: ConfirmDialogProps) {
  const ids = useId();
  const [typed, setTyped] = useState('');
  const [reason, setReason] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const ready = typeToConfirm === undefined || typed === typeToConfirm;

  const confirm = async () => {
    if (!ready || busy) return;
    setBusy(true);
    setError(null);
    try {
      await onConfirm(reason.trim());
      onClose();
    } catch (e) {
      setError((e as Error).message);
      setBusy(false);
    }
  };

  const field =
    'w-full rounded-md border border-slate-700 bg-slate-950 px-2 py-1.5 text-sm text-slate-100 focus:outline-none focus:ring-2 focus:ring-sky-500';
  return (
    <Modal labelledBy={`${ids}-title`} describedBy={`${ids}-text`} onEscape={busy ? undefined : onClose} size="md">
      <h2 id={`${ids}-title`} className="text-lg font-semibold text-white">
        {title}
      </h2>
      <div id={`${ids}-text`} className="mt-2 flex flex-col gap-2 text-sm text-slate-300">
        {children}
      </div>
      <form
        className="mt-4 flex flex-col gap-3"
        onSubmit={(e) => {
          e.preventDefault();
          void confirm();
        }}
      >
        {typeToConfirm !== undefined && (
          <label className="flex flex-col gap-1 text-sm text-slate-300">
            <span>
              Type <code className="break-all rounded bg-slate-800 px-1 font-mono text-slate-100">{typeToConfirm}</code>{' '}
              to confirm
            </span>
            <input
              className={`${field} font-mono`}
              value={typed}
              autoComplete="off"
              spellCheck={false}
              onChange={(e) => setTyped(e.target.value)}
            />
          </label>
        )}
        {askReason && (
          <label className="flex flex-col gap-1 text-sm text-slate-300">
            Reason (optional, kept in the audit log)
            <textarea
              className={`${field} min-h-16`}
              maxLength={500}
              value={reason}
              onChange={(e) => setReason(e.target.value)}
              onKeyDown={(e) => {
                if (e.key === 'Enter' && !e.shiftKey) {
                  e.preventDefault();
                  void confirm();
                }
              }}
            />
          </label>
        )}
        {error && (
          <p role="alert" className="rounded-md border border-rose-700 bg-rose-950/60 p-2 text-sm text-rose-200">
            {error}
          </p>
        )}
        <div className="flex flex-wrap justify-end gap-2">
          <button
            type="button"
            onClick={onClose}
            disabled={busy}
            className="rounded-md border border-slate-600 bg-slate-800 px-3 py-1.5 text-sm text-slate-100 hover:bg-slate-700 disabled:opacity-40"
          >
            Cancel
          </button>
          <button
            type="submit"
            disabled={!ready || busy}
            className={`rounded-md border px-3 py-1.5 text-sm font-semibold text-white disabled:cursor-not-allowed disabled:opacity-40 ${tone === 'danger' ? 'border-rose-500 bg-rose-800 hover:bg-rose-700' : 'border-sky-500 bg-sky-700 hover:bg-sky-800'}`}
          >
            {busy ? 'Working…' : confirmLabel}
          </button>
        </div>
      </form>
    </Modal>
  );
}
