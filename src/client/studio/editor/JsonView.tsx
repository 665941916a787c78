import { useState } from 'react';
import type { EditorDefinition } from '../pool';
import { area } from '../editorFields';

/**
 * The whole study as the JSON the study format reads (the same as a file in data/studies/):
 * edits here change the form, and the form's edits show here when this tab opens again.
 */
export function JsonView({ def, onChange }: { def: EditorDefinition; onChange: (d: EditorDefinition) => void }) {
  const [text, setText] = useState(() => JSON.stringify(def, null, 2));
  const [problem, setProblem] = useState<string | null>(null);
  return (
    <label className="flex flex-col gap-1 text-sm text-slate-300">
      Study definition (JSON)
      <textarea
        className={`${area} min-h-[28rem] text-xs`}
        value={text}
        spellCheck={false}
        aria-invalid={problem !== null}
        aria-describedby={problem ? 'json-problem' : undefined}
        onChange={(e) => {
          setText(e.target.value);
          try {
            const parsed: unknown = JSON.parse(e.target.value);
            if (
              typeof parsed !== 'object' ||
              parsed === null ||
              Array.isArray(parsed) ||
              !Array.isArray((parsed as { items?: unknown }).items)
            ) {
              throw new Error('the study is an object with an "items" list, { "title": ..., "items": [...] }');
            }
            setProblem(null);
            onChange(parsed as EditorDefinition);
          } catch (err) {
            setProblem(`This is not a study yet: ${(err as Error).message}. The form keeps the last version that was.`);
          }
        }}
      />
      {problem && (
        <span id="json-problem" role="alert" className="text-amber-300">
          {problem}
        </span>
      )}
    </label>
  );
}
