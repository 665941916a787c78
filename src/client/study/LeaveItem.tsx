/** The item toolbar's shared parts: leaving an item before its end, the practice tag. */
import { useState } from 'react';
import { ConfirmDialog } from '../ui/ConfirmDialog';
import { Button } from '../ui/Button';

/**
 * A button that leaves the item before its end, after the participant confirms in the app's own
 * dialog (never the browser's `confirm`, which looks foreign and which automation dismisses).
 */
export function LeaveItem({
  label,
  title,
  confirmLabel,
  onLeave,
  children,
}: {
  label: string;
  title: string;
  confirmLabel: string;
  onLeave: () => void;
  children: React.ReactNode;
}) {
  const [asking, setAsking] = useState(false);
  return (
    <>
      <Button onClick={() => setAsking(true)}>{label}</Button>
      {asking && (
        <ConfirmDialog
          title={title}
          confirmLabel={confirmLabel}
          onConfirm={async () => onLeave()}
          onClose={() => setAsking(false)}
        >
          {children}
        </ConfirmDialog>
      )}
    </>
  );
}

export function PracticeTag({ practice }: { practice: boolean }) {
  return practice ? (
    <span className="rounded bg-amber-500/20 px-2 py-0.5 text-xs font-semibold text-amber-200">Practice</span>
  ) : null;
}
