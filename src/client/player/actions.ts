/**
 * The grid player's keyboard actions, one registry: a name, the keys shown in the UI, a key test
 * and what it does. Buttons and shortcuts call the same `perform`, so they cannot drift apart.
 */
import type { PlayerController } from './controller';

export interface PlayerAction {
  readonly id: string;
  readonly label: string;
  /** Keys as shown to people, e.g. `Ctrl+Z`. */
  readonly keys: readonly string[];
  keyTest(e: KeyboardEvent): boolean;
  perform(c: PlayerController): void;
}

const mod = (e: KeyboardEvent) => e.ctrlKey || e.metaKey;
const plain = (e: KeyboardEvent) => !e.ctrlKey && !e.metaKey && !e.altKey;
const key = (e: KeyboardEvent, k: string) => e.key.toLowerCase() === k;

export const PLAYER_ACTIONS: readonly PlayerAction[] = [
  { id: 'tool.edit', label: 'Edit', keys: ['E'], keyTest: (e) => plain(e) && key(e, 'e'), perform: (c) => c.setTool('edit') },
  { id: 'tool.select', label: 'Select', keys: ['S'], keyTest: (e) => plain(e) && key(e, 's'), perform: (c) => c.setTool('select') },
  { id: 'tool.fill', label: 'Flood fill', keys: ['F'], keyTest: (e) => plain(e) && key(e, 'f'), perform: (c) => c.setTool('fill') },
  { id: 'copy', label: 'Copy', keys: ['C', 'Ctrl+C'], keyTest: (e) => !e.altKey && key(e, 'c') && !e.shiftKey, perform: (c) => c.copy() },
  { id: 'paste', label: 'Paste', keys: ['V', 'Ctrl+V'], keyTest: (e) => !e.altKey && key(e, 'v') && !e.shiftKey, perform: (c) => c.paste() },
  { id: 'redo', label: 'Redo', keys: ['Ctrl+Shift+Z', 'Ctrl+Y'], keyTest: (e) => mod(e) && ((key(e, 'z') && e.shiftKey) || (key(e, 'y') && !e.shiftKey)), perform: (c) => c.redo() },
  { id: 'undo', label: 'Undo', keys: ['Ctrl+Z'], keyTest: (e) => mod(e) && key(e, 'z') && !e.shiftKey, perform: (c) => c.undo() },
  { id: 'select.clear', label: 'Clear selection', keys: ['Esc'], keyTest: (e) => e.key === 'Escape', perform: (c) => c.clearSelection() },
  ...Array.from({ length: 10 }, (_, n): PlayerAction => ({
    id: `color.${n}`, label: `Colour ${n}`, keys: [String(n)],
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
  // A held key repeats only undo and redo; a held colour or tool key is one choice.
  return e.repeat && action?.id !== 'undo' && action?.id !== 'redo' ? undefined : action;
}
