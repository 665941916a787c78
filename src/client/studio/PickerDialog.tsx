/**
 * The shell of the study editor's pickers (tasks, questions, a pool's candidates): a modal dialog with a title, a
 * search field, the count of matches, Cancel and a confirm button; the list and the chosen
 * item's preview go in `children`, side by side on a wide screen.
 */
import { useEffect, useRef, type ReactNode } from 'react';
import { Button } from '../ui/Button';

export interface PickerDialogProps {
  /** `task` gives the test ids `task-picker`, `task-picker-count` and the title's id. */
  readonly name: string;
  readonly title: ReactNode;
  readonly search: string;
  readonly onSearch: (text: string) => void;
  readonly searchLabel: string;
  readonly placeholder: string;
  readonly count: string;
  readonly confirmLabel: string;
  readonly canConfirm: boolean;
  readonly onConfirm: () => void;
  readonly onClose: () => void;
  readonly children: ReactNode;
  /** Controls beside the search (a source to pick from, select all). */
  readonly toolbar?: ReactNode;
}

export function PickerDialog(p: PickerDialogProps) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const d = ref.current;
    if (d && !d.open) d.showModal();
  }, []);
  return (
    <dialog
      ref={ref}
      aria-labelledby={`${p.name}-picker-title`}
      data-testid={`${p.name}-picker`}
      onClose={p.onClose}
      className="m-auto h-[90dvh] max-h-none w-[min(1100px,96vw)] max-w-none rounded-xl border border-slate-700 bg-slate-950 p-0 text-slate-100 shadow-2xl backdrop:bg-slate-950/85"
    >
      <div className="flex h-full flex-col">
        <div className="flex flex-wrap items-center gap-3 border-b border-slate-800 p-3">
          <h2 id={`${p.name}-picker-title`} className="text-sm font-semibold text-white">
            {p.title}
          </h2>
          <input
            type="search"
            value={p.search}
            onChange={(e) => p.onSearch(e.target.value)}
            placeholder={p.placeholder}
            aria-label={p.searchLabel}
            autoFocus
            className="h-8 w-64 rounded-md border border-slate-700 bg-slate-900 px-3 text-sm focus:outline-none focus:ring-2 focus:ring-sky-500"
          />
          {p.toolbar}
          <span className="text-xs text-slate-300" data-testid={`${p.name}-picker-count`}>
            {p.count}
          </span>
          <div className="ml-auto flex gap-2">
            <Button onClick={() => ref.current?.close()}>Cancel</Button>
            <Button
              tone="primary"
              disabled={!p.canConfirm}
              onClick={() => {
                p.onConfirm();
                ref.current?.close();
              }}
            >
              {p.confirmLabel}
            </Button>
          </div>
        </div>
        <div className="flex min-h-0 flex-1 flex-col md:flex-row">{p.children}</div>
      </div>
    </dialog>
  );
}
