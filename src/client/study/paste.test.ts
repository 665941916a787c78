import type { ClipboardEvent } from 'react';
import { describe, expect, it } from 'vitest';
import { eventDataProblem, PASTE_TEXT_MAX } from '../../core/protocol/events';
import { pastedText } from './paste';

/** A paste event carrying `text` as the clipboard's plain text. */
const paste = (text: string) =>
  ({
    clipboardData: { getData: (type: string) => (type === 'text/plain' ? text : '') },
  }) as unknown as ClipboardEvent<HTMLElement>;

describe('pastedText', () => {
  it('logs the pasted text and its length, as the server accepts it', () => {
    const data = pastedText(paste('The rule: mirror it.'), 'q1', { field: 'answer', index: 2 });
    expect(data).toEqual({ item: 'q1', field: 'answer', index: 2, length: 20, text: 'The rule: mirror it.' });
    expect(eventDataProblem('text.paste', data)).toBeNull();
  });

  it('keeps the first characters of a long paste, never half of a character, and its whole length', () => {
    const long = 'a'.repeat(PASTE_TEXT_MAX - 1) + '😀' + 'b'.repeat(100);
    const data = pastedText(paste(long), 'd', { field: 'description', stage: 'last' })!;
    expect(data.length).toBe(long.length);
    expect(data.text).toBe('a'.repeat(PASTE_TEXT_MAX - 1));
    expect(eventDataProblem('text.paste', data)).toBeNull();
  });

  it('logs nothing for a paste without text (an image)', () => {
    expect(pastedText(paste(''), 'q1', { field: 'answer' })).toBeNull();
  });
});
