import { useMemo, useState, type ReactNode } from 'react';
import { Bar, BarChart, CartesianGrid, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import type { Dist } from './queries';

export interface Column<T> {
  readonly key: string;
  /** The header's text; '' for a column of links or buttons, which is not sorted. */
  readonly label: string;
  /** The header's name for a screen reader when `label` is '' (a header is never empty). */
  readonly srLabel?: string;
  /** The value sorted on. */
  readonly value: (row: T) => number | string | null;
  readonly render?: (row: T) => ReactNode;
  readonly align?: 'left' | 'right';
}

/**
 * A table whose columns sort on click (again to reverse); with `pageSize`, shown a page at a time
 * (sorting covers every row), so hundreds of rows stay quick.
 */
export function SortableTable<T>({
  columns,
  rows,
  rowKey,
  label,
  empty,
  pageSize,
  rowClass,
}: {
  columns: readonly Column<T>[];
  rows: readonly T[];
  rowKey: (r: T) => string;
  label: string;
  empty: string;
  pageSize?: number;
  rowClass?: (r: T) => string;
}) {
  const [sort, setSort] = useState<{ key: string; dir: 1 | -1 } | null>(null);
  const [page, setPage] = useState(0);
  const sorted = useMemo(() => {
    if (!sort) return rows;
    const col = columns.find((c) => c.key === sort.key);
    if (!col) return rows;
    return [...rows].sort((a, b) => {
      const x = col.value(a);
      const y = col.value(b);
      if (x === y) return 0;
      if (x === null) return 1;
      if (y === null) return -1;
      return (x < y ? -1 : 1) * sort.dir;
    });
  }, [rows, columns, sort]);
  if (rows.length === 0)
    return <p className="rounded-lg border border-slate-800 p-4 text-sm text-slate-400">{empty}</p>;
  const pages = pageSize ? Math.max(1, Math.ceil(sorted.length / pageSize)) : 1;
  const at = Math.min(page, pages - 1);
  const shown = pageSize ? sorted.slice(at * pageSize, (at + 1) * pageSize) : sorted;
  return (
    <div className="overflow-x-auto rounded-lg border border-slate-800">
      <table className="w-full text-sm" aria-label={label}>
        <thead className="bg-slate-900 text-xs uppercase tracking-wide text-slate-400">
          <tr>
            {columns.map((c) => (
              <th
                key={c.key}
                className={`px-3 py-2 font-medium ${c.align === 'right' ? 'text-right' : 'text-left'}`}
                aria-sort={sort?.key === c.key ? (sort.dir === 1 ? 'ascending' : 'descending') : 'none'}
              >
                {c.label === '' ? (
                  <span className="sr-only">{c.srLabel ?? c.key}</span>
                ) : (
                  <button
                    type="button"
                    className="inline-flex items-center gap-1 hover:text-white"
                    onClick={() =>
                      setSort((s) =>
                        s?.key === c.key ? { key: c.key, dir: s.dir === 1 ? -1 : 1 } : { key: c.key, dir: 1 },
                      )
                    }
                  >
                    {c.label}
                    <span aria-hidden className="text-[10px]">
                      {sort?.key === c.key ? (sort.dir === 1 ? '▲' : '▼') : '↕'}
                    </span>
                  </button>
                )}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {shown.map((r) => (
            <tr key={rowKey(r)} className={`border-t border-slate-800 hover:bg-slate-900/60 ${rowClass?.(r) ?? ''}`}>
              {columns.map((c) => (
                <td key={c.key} className={`px-3 py-2 ${c.align === 'right' ? 'text-right tabular-nums' : ''}`}>
                  {c.render ? c.render(r) : String(c.value(r) ?? '–')}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
      {pages > 1 && (
        <nav
          className="flex items-center justify-end gap-2 border-t border-slate-800 px-3 py-2 text-xs text-slate-300"
          aria-label={`${label} pages`}
        >
          <span>
            Rows {at * pageSize! + 1}-{Math.min(sorted.length, (at + 1) * pageSize!)} of {sorted.length}
          </span>
          <button
            type="button"
            className="rounded border border-slate-700 px-2 py-1 hover:bg-slate-800 disabled:opacity-40"
            disabled={at === 0}
            onClick={() => setPage(at - 1)}
          >
            Previous
          </button>
          <button
            type="button"
            className="rounded border border-slate-700 px-2 py-1 hover:bg-slate-800 disabled:opacity-40"
            disabled={at >= pages - 1}
            onClick={() => setPage(at + 1)}
          >
            Next
          </button>
        </nav>
      )}
    </div>
  );
}

export function Stat({ label, value, hint }: { label: string; value: ReactNode; hint?: string }) {
  return (
    <div className="rounded-lg border border-slate-800 bg-slate-900/60 px-3 py-2" title={hint}>
      <div className="text-[11px] uppercase tracking-wide text-slate-400">{label}</div>
      <div className="mt-0.5 text-lg font-semibold tabular-nums text-white">{value}</div>
    </div>
  );
}

export function formatMs(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return '–';
  const s = Math.round(ms / 1000);
  return s < 60 ? `${s}s` : `${Math.floor(s / 60)}m ${String(s % 60).padStart(2, '0')}s`;
}

export function formatPct(x: number | null | undefined): string {
  return x === null || x === undefined || !Number.isFinite(x) ? '–' : `${Math.round(x * 100)}%`;
}

/** Bins values into at most `bins` equal ranges of whole numbers. */
export function histogram(values: readonly number[], bins = 12): { bin: string; count: number }[] {
  if (values.length === 0) return [];
  const min = Math.min(...values);
  const max = Math.max(...values);
  const width = Math.max(1, Math.ceil((max - min + 1) / bins));
  const out: { bin: string; count: number }[] = [];
  for (let lo = min; lo <= max; lo += width) {
    const hi = lo + width - 1;
    out.push({ bin: width === 1 ? String(lo) : `${lo}-${hi}`, count: values.filter((v) => v >= lo && v <= hi).length });
  }
  return out;
}

/** A histogram of a distribution, with its participant count and median. */
export function DistChart({
  dist,
  label,
  unit,
  scale = 1,
  color = '#38bdf8',
}: {
  dist: Dist;
  label: string;
  unit: string;
  scale?: number;
  color?: string;
}) {
  const data = histogram(dist.values.map((v) => Math.round(v / scale)));
  return (
    <figure className="rounded-lg border border-slate-800 bg-slate-900/60 p-3">
      <figcaption className="mb-2 flex items-baseline justify-between text-xs text-slate-400">
        <span className="font-semibold uppercase tracking-wide">{label}</span>
        <span>
          n={dist.n}
          {dist.median !== null ? ` · median ${Math.round(dist.median / scale)} ${unit}` : ''}
        </span>
      </figcaption>
      {data.length === 0 ? (
        <p className="py-8 text-center text-sm text-slate-500">No data yet.</p>
      ) : (
        <div className="h-40">
          <ResponsiveContainer width="100%" height="100%">
            <BarChart data={data} margin={{ top: 4, right: 4, bottom: 4, left: -20 }}>
              <CartesianGrid stroke="#1e293b" vertical={false} />
              <XAxis dataKey="bin" tick={{ fill: '#94a3b8', fontSize: 11 }} stroke="#334155" />
              <YAxis allowDecimals={false} tick={{ fill: '#94a3b8', fontSize: 11 }} stroke="#334155" />
              <Tooltip
                contentStyle={{ background: '#0f172a', border: '1px solid #334155', color: '#e2e8f0' }}
                formatter={(v) => [v, 'participants']}
                labelFormatter={(l) => `${l} ${unit}`}
              />
              <Bar dataKey="count" fill={color} isAnimationActive={false} />
            </BarChart>
          </ResponsiveContainer>
        </div>
      )}
    </figure>
  );
}

/**
 * A row of tabs. With `panelId`, each tab names the panel it controls and the panel (the caller's
 * element with that id, `role="tabpanel"`) is labelled by the selected tab: `tabId(panelId, tab)`.
 */
export function Tabs<T extends string>({
  tabs,
  value,
  onChange,
  panelId,
}: {
  tabs: readonly { id: T; label: string }[];
  value: T;
  onChange: (t: T) => void;
  panelId?: string;
}) {
  return (
    <div role="tablist" className="flex gap-1 overflow-x-auto border-b border-slate-800">
      {tabs.map((t) => (
        <button
          key={t.id}
          type="button"
          role="tab"
          aria-selected={value === t.id}
          onClick={() => onChange(t.id)}
          id={panelId ? tabId(panelId, t.id) : undefined}
          aria-controls={panelId && value === t.id ? panelId : undefined}
          className={`-mb-px shrink-0 whitespace-nowrap border-b-2 px-3 py-2 text-sm ${value === t.id ? 'border-sky-400 text-white' : 'border-transparent text-slate-400 hover:text-slate-200'}`}
        >
          {t.label}
        </button>
      ))}
    </div>
  );
}

/** The id of a tab of `Tabs` with a `panelId`, which labels the panel. */
export const tabId = (panelId: string, tab: string) => `${panelId}-tab-${tab}`;
