import { useEffect, useRef, type ReactNode } from 'react';
import { createPortal } from 'react-dom';

const FOCUSABLE =
  'button:not([disabled]), input:not([disabled]), textarea:not([disabled]), select:not([disabled]), a[href], [tabindex]:not([tabindex="-1"])';

/**
 * A modal dialog (a written description, withdrawing, a researcher's confirmation): labelled by
 * its title, focus put on its first field (else its first button) and kept inside (Tab and
 * Shift+Tab wrap), and returned to the opener on close. Keys typed inside never reach the grid or
 * game behind it. `onEscape`, when given, closes it with Escape and with a click beside it; a
 * dialog without it (a description) cannot be dismissed.
 */
export function Modal({
  labelledBy,
  describedBy,
  onEscape,
  children,
  testId,
  size = 'xl',
}: {
  labelledBy: string;
  describedBy?: string;
  onEscape?: () => void;
  children: ReactNode;
  testId?: string;
  /** `md`: a short confirmation; `xl`: a form. */
  size?: 'md' | 'xl';
}) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const opener = document.activeElement as HTMLElement | null;
    (
      box.current?.querySelector<HTMLElement>('textarea, input') ?? box.current?.querySelector<HTMLElement>('button')
    )?.focus();
    return () => {
      if (opener?.isConnected) opener.focus();
    };
  }, []);
  const onKeyDown = (e: React.KeyboardEvent) => {
    e.stopPropagation();
    if (e.key === 'Escape' && onEscape) {
      onEscape();
      return;
    }
    if (e.key !== 'Tab' || !box.current) return;
    const items = [...box.current.querySelectorAll<HTMLElement>(FOCUSABLE)];
    if (items.length === 0) return;
    const [a, z] = [items[0], items[items.length - 1]];
    if (e.shiftKey && document.activeElement === a) {
      e.preventDefault();
      z.focus();
    } else if (!e.shiftKey && document.activeElement === z) {
      e.preventDefault();
      a.focus();
    }
  };
  return createPortal(
    <div
      className="fixed inset-0 z-50 flex items-center justify-center bg-slate-950/80 p-4"
      onMouseDown={(e) => {
        if (e.target === e.currentTarget) onEscape?.();
      }}
    >
      <div
        ref={box}
        role="dialog"
        aria-modal="true"
        aria-labelledby={labelledBy}
        aria-describedby={describedBy}
        onKeyDown={onKeyDown}
        data-testid={testId}
        className={`max-h-full w-full overflow-y-auto border border-slate-700 bg-slate-900 shadow-xl ${size === 'md' ? 'max-w-md rounded-lg p-5' : 'max-w-xl rounded-xl p-6'}`}
      >
        {children}
      </div>
    </div>,
    document.body,
  );
}
