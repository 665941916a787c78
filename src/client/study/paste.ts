import type { ClipboardEvent } from 'react';
import { PASTE_TEXT_MAX } from '../../core/protocol/events';

/** Where a paste landed: a description (with its stage) or a question's answer (with its place in a block). */
export type PasteField = { field: 'description'; stage: 'first' | 'last' } | { field: 'answer'; index?: number };

/**
 * A `text.paste` event's data for a paste into a written answer: the pasted text itself (its
 * first `PASTE_TEXT_MAX` characters) and its whole length, so a researcher sees what was pasted.
 * Null when nothing textual was pasted.
 *
 * @example
 * <textarea onPaste={(e) => { const d = pastedText(e, item, { field: 'answer' }); if (d) log.append('text.paste', d); }} />
 */
export function pastedText(
  e: ClipboardEvent<HTMLElement>,
  item: string,
  where: PasteField,
): Record<string, unknown> | null {
  const text = e.clipboardData.getData('text/plain');
  if (text === '') return null;
  // Cut between two halves of a surrogate pair would leave a half the server refuses.
  let kept = text.slice(0, PASTE_TEXT_MAX);
  if (/[\ud800-\udbff]$/.test(kept)) kept = kept.slice(0, -1);
  return { item, ...where, length: text.length, text: kept };
}
