/**
 * The grid player's keyboard actions, one registry: a name, the keys shown in the UI, a key test
 * and what it does. Buttons and shortcuts call the same `perform`, so they cannot drift apart.
 */
import type { GridSide } from '../../core/log/gridPlayer';
import { GRID_SIDE_ATTR, type PlayerController } from './controller';
import { usePlayer } from './store';

export interface PlayerAction {
  readonly id: string;
  readonly label: string;
  /** Keys as shown to people, e.g. `Ctrl+Z`. */
  readonly keys: readonly string[];
  keyTest(e: KeyboardEvent): boolean;
  perform(c: PlayerController, e?: KeyboardEvent): void;
  /** Whether holding the key down repeats the action (undo, redo, the cursor). */
  readonly repeats?: boolean;
}

/**
 * Which grid a key press is aimed at: the grid that has the focus, or null when the focus is on
 * the page itself (nothing focused). Undefined when another control has it (a button, a
 * dialog, the demonstrations), whose own keys (Space, arrows) must keep working.
 */
export function keyTarget(e: KeyboardEvent): GridSide | null | undefined {
  const t = e.target as HTMLElement | null;
  if (!t || t === document.body || t === document.documentElement) return null;
  const side = t.getAttribute?.(GRID_SIDE_ATTR);
  return side === 'input' || side === 'output' ? side : undefined;
}

function focusGrid(side: GridSide): void {
  const el = document.querySelector<HTMLElement>(`[${GRID_SIDE_ATTR}="${side}"]`);
  if (el && document.activeElement !== el) el.focus({ preventScroll: true });
}

const ARROWS: Readonly<Record<string, readonly [number, number]>> = {
  ArrowUp: [-1, 0],
  ArrowDown: [1, 0],
  ArrowLeft: [0, -1],
  ArrowRight: [0, 1],
};

/**
 * Arrow keys. With output cells selected they move those cells; otherwise they move the cell
 * cursor of the focused grid (the output when no grid has the focus). Shift+arrows stretch a
 * rectangle selection from the cursor, on either grid.
 */
function arrow(c: PlayerController, e: KeyboardEvent): void {
  const [dr, dc] = ARROWS[e.key];
  const side = keyTarget(e) ?? 'output';
  if (e.shiftKey) {
    focusGrid(side);
    c.moveCursor(side, dr, dc, true);
    return;
  }
  const sel = usePlayer.getState().state.selection;
  if (sel?.side === 'output' && side === 'output') {
    c.moveSelection(dr, dc);
    return;
  }
  focusGrid(side);
  c.moveCursor(side, dr, dc, false);
}

const mod = (e: KeyboardEvent) => e.ctrlKey || e.metaKey;
const plain = (e: KeyboardEvent) => !e.ctrlKey && !e.metaKey && !e.altKey;
const key = (e: KeyboardEvent, k: string) => e.key.toLowerCase() === k;

export const PLAYER_ACTIONS: readonly PlayerAction[] = [
  {
    id: 'tool.edit',
    label: 'Edit',
    keys: ['E'],
    keyTest: (e) => plain(e) && key(e, 'e'),
    perform: (c) => c.setTool('edit'),
  },
  {
    id: 'tool.select',
    label: 'Select',
    keys: ['S'],
    keyTest: (e) => plain(e) && key(e, 's'),
    perform: (c) => c.setTool('select'),
  },
  {
    id: 'tool.fill',
    label: 'Flood fill',
    keys: ['F'],
    keyTest: (e) => plain(e) && key(e, 'f'),
    perform: (c) => c.setTool('fill'),
  },
  {
    id: 'tool.wand',
    label: 'Wand',
    keys: ['W'],
    keyTest: (e) => plain(e) && key(e, 'w'),
    perform: (c) => c.setTool('wand'),
  },
  {
    id: 'cursor',
    label: 'Move the cursor, or the selected output cells',
    keys: ['Arrows', 'Shift+Arrows'],
    repeats: true,
    keyTest: (e) => !e.ctrlKey && !e.metaKey && !e.altKey && e.key in ARROWS && keyTarget(e) !== undefined,
    perform: (c, e) => e && arrow(c, e),
  },
  {
    id: 'act',
    label: 'Use the tool at the cursor',
    keys: ['Space', 'Shift+Space'],
    keyTest: (e) => plain(e) && e.key === ' ' && keyTarget(e) !== undefined,
    perform: (c, e) => {
      const side = keyTarget(e!) ?? 'output';
      focusGrid(side);
      c.actAtCursor(side, !!e?.shiftKey);
    },
  },
  {
    id: 'rotate.cw',
    label: 'Rotate clockwise',
    keys: ['R'],
    keyTest: (e) => plain(e) && key(e, 'r') && !e.shiftKey,
    perform: (c) => c.rotate('cw'),
  },
  {
    id: 'rotate.ccw',
    label: 'Rotate anticlockwise',
    keys: ['Shift+R'],
    keyTest: (e) => plain(e) && key(e, 'r') && e.shiftKey,
    perform: (c) => c.rotate('ccw'),
  },
  {
    id: 'flip.horizontal',
    label: 'Flip left-right',
    keys: ['X'],
    keyTest: (e) => plain(e) && key(e, 'x') && !e.shiftKey,
    perform: (c) => c.flip('horizontal'),
  },
  {
    id: 'flip.vertical',
    label: 'Flip top-bottom',
    keys: ['Y'],
    keyTest: (e) => plain(e) && key(e, 'y') && !e.shiftKey,
    perform: (c) => c.flip('vertical'),
  },
  {
    id: 'crop',
    label: 'Crop to selection',
    keys: ['K'],
    keyTest: (e) => plain(e) && key(e, 'k') && !e.shiftKey,
    perform: (c) => c.crop(),
  },
  {
    id: 'copy.input',
    label: 'Copy from input',
    keys: ['I'],
    keyTest: (e) => plain(e) && key(e, 'i') && !e.shiftKey,
    perform: (c) => c.copyFromInput(),
  },
  {
    id: 'submit',
    label: 'Submit',
    keys: ['Ctrl+Enter'],
    keyTest: (e) => mod(e) && e.key === 'Enter',
    perform: (c) => void c.submit(),
  },
  {
    id: 'copy',
    label: 'Copy',
    keys: ['C', 'Ctrl+C'],
    keyTest: (e) => !e.altKey && key(e, 'c') && !e.shiftKey,
    perform: (c) => c.copy(),
  },
  {
    id: 'paste',
    label: 'Paste',
    keys: ['V', 'Ctrl+V'],
    keyTest: (e) => !e.altKey && key(e, 'v') && !e.shiftKey,
    perform: (c) => c.paste(),
  },
  {
    id: 'redo',
    label: 'Redo',
    keys: ['Ctrl+Shift+Z', 'Ctrl+Y'],
    repeats: true,
    keyTest: (e) => mod(e) && ((key(e, 'z') && e.shiftKey) || (key(e, 'y') && !e.shiftKey)),
    perform: (c) => c.redo(),
  },
  {
    id: 'undo',
    label: 'Undo',
    keys: ['Ctrl+Z'],
    repeats: true,
    keyTest: (e) => mod(e) && key(e, 'z') && !e.shiftKey,
    perform: (c) => c.undo(),
  },
  {
    id: 'select.clear',
    label: 'Clear selection',
    keys: ['Esc'],
    keyTest: (e) => e.key === 'Escape',
    perform: (c) => c.clearSelection(),
  },
  ...Array.from({ length: 10 }, (_, n): PlayerAction => ({
    id: `color.${n}`,
    label: `Colour ${n}`,
    keys: [String(n)],
    keyTest: (e) => plain(e) && e.key === String(n),
    perform: (c) => c.setColor(n),
  })),
];

/** True when the key is meant for a text field, so shortcuts must not fire. */
export function isTyping(e: KeyboardEvent): boolean {
  const t = e.target as HTMLElement | null;
  if (!t) return false;
  const tag = t.tagName;
  return tag === 'INPUT' || tag === 'TEXTAREA' || tag === 'SELECT' || t.isContentEditable;
}

/** The action a key press triggers, if any. */
export function actionForKey(e: KeyboardEvent): PlayerAction | undefined {
  if (isTyping(e)) return undefined;
  const action = PLAYER_ACTIONS.find((a) => a.keyTest(e));
  // A held key repeats only undo, redo and the arrows; a held colour or tool key is one choice.
  return e.repeat && !action?.repeats ? undefined : action;
}
