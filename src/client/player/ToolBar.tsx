/** The grid-task player's tool bar: tools, colours, edits, transforms, the output's size and the keyboard help. */
import { useEffect, useRef, useState } from 'react';
import { ARC_PALETTE } from '../../core/grid/palette';
import { currentTest, type Tool } from '../../core/log/gridPlayer';
import { Button } from '../ui/Button';
import { PLAYER_ACTIONS } from './actions';
import type { PlayerController } from './controller';
import { usePlayer } from './store';

/** The id of the keyboard help that both grids point to (aria-describedby). */
export const GRID_KEYS_HELP = 'grid-keys-help';

const TOOLS: { tool: Tool; label: string; key: string; hint: string }[] = [
  { tool: 'edit', label: 'Edit', key: 'E', hint: 'Click or drag on the output to paint cells' },
  {
    tool: 'select',
    label: 'Select',
    key: 'S',
    hint: 'Drag a rectangle on the input or output (Shift adds to the selection); drag selected output cells to move them',
  },
  {
    tool: 'wand',
    label: 'Wand',
    key: 'W',
    hint: 'Click a cell to select its 4-connected area of one colour (Shift adds to the selection)',
  },
  { tool: 'fill', label: 'Flood fill', key: 'F', hint: 'Click an output cell to fill its 4-connected area' },
];

/** The tools, the colours and the edits; and Submit, unless it sits above the grid (a phone). */
export function ToolBar({ controller, submit }: { controller: PlayerController; submit: boolean }) {
  const tool = usePlayer((s) => s.state.tool);
  const color = usePlayer((s) => s.state.color);
  const showSymbols = usePlayer((s) => s.state.showSymbols);
  const test = usePlayer((s) => currentTest(s.state));
  const hasClip = usePlayer((s) => s.state.clipboard !== null);
  const open = test?.status === 'open';
  return (
    <div className="flex shrink-0 flex-col gap-2 rounded-lg border border-slate-800 bg-slate-900/60 p-2">
      <div className="flex flex-wrap items-center gap-2">
        <div className="flex gap-1" role="group" aria-label="Tools">
          {TOOLS.map((t) => (
            <Button
              key={t.tool}
              tone={tool === t.tool ? 'active' : 'default'}
              aria-pressed={tool === t.tool}
              title={t.hint}
              kbd={t.key}
              onClick={() => controller.setTool(t.tool)}
            >
              {t.label}
            </Button>
          ))}
        </div>
        <div className="mx-1 hidden h-6 w-px bg-slate-700 sm:block" />
        <div className="flex w-full gap-1 sm:w-auto" role="radiogroup" aria-label="Colour">
          {ARC_PALETTE.map((p, i) => (
            <button
              key={i}
              type="button"
              role="radio"
              aria-checked={color === i}
              aria-label={`Colour ${i} (${p.name})`}
              title={`${i}: ${p.name} (key ${i})`}
              onClick={() => controller.setColor(i)}
              className={`relative h-8 min-w-0 flex-1 rounded-md border-2 sm:w-8 sm:flex-none ${color === i ? 'border-white ring-2 ring-sky-400' : 'border-slate-700 hover:border-slate-400'}`}
              style={{ background: p.hex }}
            >
              {showSymbols && (
                <span
                  className={`absolute inset-0 flex items-center justify-center font-mono text-xs ${[0, 1, 2, 6, 9].includes(i) ? 'text-white' : 'text-black'}`}
                >
                  {i}
                </span>
              )}
            </button>
          ))}
        </div>
      </div>
      <div className="flex flex-wrap items-center gap-2">
        <TransformTools controller={controller} open={open} />
        <label className="ml-auto flex items-center gap-1.5 text-xs text-slate-300">
          <input
            type="checkbox"
            checked={showSymbols}
            onChange={() => controller.toggleSymbols()}
            className="accent-sky-500"
          />
          Show symbol numbers
        </label>
        <KeysHelp />
      </div>
      <div className="flex flex-wrap items-center gap-2">
        <ResizeField controller={controller} disabled={!open} />
        <Button onClick={() => controller.copyFromInput()} disabled={!open} title="Copy from input (I)">
          Copy from input
        </Button>
        <Button onClick={() => controller.resetGrid()} disabled={!open}>
          Reset grid
        </Button>
        <div className="mx-1 hidden h-6 w-px bg-slate-700 sm:block" />
        <Button onClick={() => controller.undo()} disabled={!open || !test?.undo.length} title="Undo (Ctrl+Z)">
          Undo
        </Button>
        <Button
          onClick={() => controller.redo()}
          disabled={!open || !test?.redo.length}
          title="Redo (Ctrl+Shift+Z or Ctrl+Y)"
        >
          Redo
        </Button>
        <Button onClick={() => controller.copy()} kbd="C">
          Copy
        </Button>
        <Button onClick={() => controller.paste()} disabled={!hasClip || !open} kbd="V">
          Paste
        </Button>
        {submit && <SubmitButton controller={controller} className="ml-auto" />}
      </div>
    </div>
  );
}

/** Rotate, flip and crop: of the output selection, or of the whole output with none; and the keys. */
function TransformTools({ controller, open }: { controller: PlayerController; open: boolean }) {
  const outputSelected = usePlayer((s) => s.state.selection?.side === 'output');
  const what = outputSelected
    ? 'the selected cells (arrows or a drag move them)'
    : 'the whole output (select output cells to act on them only)';
  return (
    <>
      <div className="flex gap-1" role="group" aria-label="Rotate and flip">
        <Button onClick={() => controller.rotate('cw')} disabled={!open} kbd="R" title={`Rotate ${what} clockwise`}>
          Rotate ↻
        </Button>
        <Button
          onClick={() => controller.rotate('ccw')}
          disabled={!open}
          kbd="⇧R"
          title={`Rotate ${what} anticlockwise`}
        >
          Rotate ↺
        </Button>
        <Button
          onClick={() => controller.flip('horizontal')}
          disabled={!open}
          kbd="X"
          title={`Flip ${what} left-right`}
        >
          Flip ↔
        </Button>
        <Button onClick={() => controller.flip('vertical')} disabled={!open} kbd="Y" title={`Flip ${what} top-bottom`}>
          Flip ↕
        </Button>
      </div>
      <Button
        onClick={() => controller.crop()}
        disabled={!open || !outputSelected}
        kbd="K"
        title="Crop the output to the selection's bounding box"
      >
        Crop
      </Button>
    </>
  );
}

/**
 * The keyboard's scheme, shown on demand and read to assistive technology from the grids
 * (aria-describedby): with it a task can be solved without a mouse.
 */
function KeysHelp() {
  const keys = (id: string) => PLAYER_ACTIONS.find((a) => a.id === id)?.keys.join(' / ') ?? '';
  const rows: [string, string][] = [
    ['Tab', 'focus the test input or your output'],
    [keys('cursor').replace(' / Shift+Arrows', ''), 'move the cursor; with output cells selected, move those cells'],
    ['Shift+Arrows', 'select a rectangle from the cursor'],
    [
      'Space',
      'use the tool at the cursor: Edit paints, Fill fills, Select selects the cell, Wand its area (Shift+Space adds)',
    ],
    ['E / S / W / F', 'Edit, Select, Wand, Flood fill'],
    ['0-9', 'colour (recolours selected output cells)'],
    [`${keys('copy')}, ${keys('paste')}`, 'copy the selection; paste at the selected output cell or the cursor'],
    ['R / Shift+R, X / Y, K', 'rotate, flip, crop'],
    [`${keys('copy.input')}, ${keys('undo')}, ${keys('redo')}`, 'copy from input, undo, redo'],
    [`Esc, ${keys('submit')}`, 'drop the selection, submit'],
  ];
  const ref = useRef<HTMLDetailsElement>(null);
  // A popover: a press anywhere else or Escape closes it.
  useEffect(() => {
    const away = (e: PointerEvent) => {
      if (ref.current?.open && !ref.current.contains(e.target as Node)) ref.current.open = false;
    };
    document.addEventListener('pointerdown', away);
    return () => document.removeEventListener('pointerdown', away);
  }, []);
  return (
    // A phone has no keys to list.
    <details
      ref={ref}
      className="relative hidden text-xs sm:block"
      data-testid="keys-help"
      onKeyDown={(e) => {
        if (e.key !== 'Escape' || !ref.current?.open) return;
        e.stopPropagation();
        ref.current.open = false;
        ref.current.querySelector('summary')?.focus();
      }}
    >
      <summary className="flex h-8 cursor-pointer list-none items-center rounded-md border border-slate-700 bg-slate-800 px-2.5 text-sm text-slate-100 hover:bg-slate-700">
        Keys
      </summary>
      <div
        id={GRID_KEYS_HELP}
        className="absolute bottom-10 right-0 z-20 w-[30rem] rounded-lg border border-slate-700 bg-slate-950 p-3 text-slate-200 shadow-xl"
      >
        <p className="mb-2 text-slate-300">Everything works from the keyboard:</p>
        <dl className="grid grid-cols-[auto_1fr] gap-x-3 gap-y-1">
          {rows.map(([k, what]) => (
            <div key={k} className="contents">
              <dt>
                <kbd className="rounded bg-slate-800 px-1 font-mono text-[11px] text-slate-100">{k}</kbd>
              </dt>
              <dd className="text-slate-300">{what}</dd>
            </div>
          ))}
        </dl>
      </div>
    </details>
  );
}

function ResizeField({ controller, disabled }: { controller: PlayerController; disabled: boolean }) {
  const output = usePlayer((s) => currentTest(s.state)?.output);
  const size = output ? `${output.length}x${output[0].length}` : '';
  const [text, setText] = useState(size);
  const [error, setError] = useState<string | null>(null);
  const last = useRef(size);
  if (last.current !== size) {
    last.current = size;
    setText(size);
    setError(null);
  }
  return (
    <form
      className="relative flex items-center gap-1.5"
      onSubmit={(e) => {
        e.preventDefault();
        const err = controller.resize(text);
        setError(err);
        if (!err) (document.activeElement as HTMLElement | null)?.blur();
      }}
    >
      <label
        htmlFor="grid-size"
        className="text-xs text-slate-400"
        title="Type rows x columns, e.g. 3x3 or 10x12, then Enter"
      >
        Size
      </label>
      <input
        id="grid-size"
        value={text}
        disabled={disabled}
        spellCheck={false}
        autoComplete="off"
        aria-invalid={!!error}
        aria-describedby={error ? 'grid-size-error' : undefined}
        onChange={(e) => {
          setText(e.target.value);
          setError(null);
        }}
        onKeyDown={(e) => {
          if (e.key === 'Escape') {
            setText(size);
            setError(null);
            e.currentTarget.blur();
          }
        }}
        className={`h-8 w-20 rounded-md border bg-slate-950 px-2 font-mono text-sm ${error ? 'border-rose-500' : 'border-slate-700'} focus:outline-none focus:ring-2 focus:ring-sky-500`}
      />
      <Button type="submit" disabled={disabled}>
        Resize
      </Button>
      {error && (
        <div
          id="grid-size-error"
          role="alert"
          className="absolute bottom-10 left-0 z-10 w-80 max-w-[calc(100vw-2rem)] rounded-md border border-rose-500/60 bg-rose-950 px-3 py-2 text-xs text-rose-100 shadow-lg"
        >
          {error}
        </div>
      )}
    </form>
  );
}

export function SubmitButton({ controller, className = '' }: { controller: PlayerController; className?: string }) {
  const open = usePlayer((s) => currentTest(s.state)?.status === 'open');
  const submitting = usePlayer((s) => s.submitting);
  return (
    <Button
      tone="primary"
      className={`px-5 ${className}`}
      onClick={() => void controller.submit()}
      disabled={!open || submitting}
      title="Submit (Ctrl+Enter)"
    >
      {submitting ? 'Checking…' : 'Submit'}
    </Button>
  );
}
