/** The study editor's number and Markdown fields, each with its problem beside it. */
import { Markdown } from '../../ui/Markdown';
import { Labelled, area, input } from '../editorFields';

/** A whole number of the definition (at least 1), with its label and problem. */
export function NumberField({
  label,
  path,
  value,
  onChange,
}: {
  label: string;
  path: string;
  value: number;
  onChange: (v: number) => void;
}) {
  return (
    <Labelled label={label} path={path}>
      {(a) => (
        <input
          type="number"
          className={input}
          {...a}
          value={value}
          min={1}
          onChange={(e) => onChange(Number(e.target.value))}
        />
      )}
    </Labelled>
  );
}

/** Markdown beside its preview. */
export function MarkdownField({
  label,
  path,
  value,
  onChange,
}: {
  label: string;
  path: string;
  value: string;
  onChange: (v: string) => void;
}) {
  return (
    <section className="grid gap-3 md:grid-cols-2">
      <Labelled label={label} path={path}>
        {(a) => <textarea className={area} {...a} value={value} onChange={(e) => onChange(e.target.value)} />}
      </Labelled>
      <div className="rounded-md border border-slate-800 p-3 text-sm text-slate-200" aria-label={`${label} preview`}>
        {value.trim() ? <Markdown text={value} /> : <p className="text-slate-500">Preview</p>}
      </div>
    </section>
  );
}
