import type { ReactNode } from 'react';

/** One column of a {@link Table}: its header, how a row fills its cell, and how the column is shown. */
export interface Column<Row> {
  /** The header's text; with `hideHeader` read by screen readers only (a column of buttons). */
  readonly header: string;
  readonly hideHeader?: boolean;
  readonly cell: (row: Row) => ReactNode;
  /** Figures: aligned right, digits of equal width. */
  readonly numeric?: boolean;
  /** Shown from the small-screen breakpoint up only: a column a phone can do without. */
  readonly wide?: boolean;
  /** More classes for every cell of the column (`print:hidden`, a smaller text). */
  readonly className?: string;
  /** `data-testid` of each of the column's body cells, for browser tests. */
  readonly testId?: string;
  /** The column's cell in the footer row; the table has a footer row when any column has one. */
  readonly footer?: ReactNode;
}

export interface TableProps<Row> {
  /** The table's name, read by screen readers and by browser tests (`getByRole('table', { name })`). */
  readonly caption: string;
  readonly columns: readonly Column<Row>[];
  readonly rows: readonly Row[];
  readonly rowKey: (row: Row) => string;
  readonly rowTestId?: string;
  readonly testId?: string;
  /** Classes of the scrolling box around the table (its margin). */
  readonly className?: string;
}

function cellClass<Row>(c: Column<Row>, last: boolean): string {
  return [
    last ? '' : 'pr-3',
    c.numeric ? 'text-right tabular-nums' : '',
    c.wide ? 'hidden sm:table-cell' : '',
    c.className ?? '',
  ]
    .filter(Boolean)
    .join(' ');
}

/**
 * The studio's table of records: a header row, a row per record, and an optional footer row of
 * totals, scrolling sideways on a narrow screen rather than squeezing its columns.
 *
 * @example
 * <Table caption="My tokens" rows={tokens} rowKey={(t) => t.id}
 *   columns={[{ header: 'Name', cell: (t) => t.name }, { header: 'Uses', numeric: true, cell: (t) => t.uses }]} />
 */
export function Table<Row>({ caption, columns, rows, rowKey, rowTestId, testId, className = '' }: TableProps<Row>) {
  const last = columns.length - 1;
  const footed = columns.some((c) => c.footer !== undefined);
  return (
    // A box that scrolls must be reachable by keyboard, to scroll it without a mouse.
    <div
      role="region"
      aria-label={caption}
      tabIndex={0}
      className={`overflow-x-auto focus:outline-none focus-visible:ring-2 focus-visible:ring-sky-500 ${className}`}
    >
      <table className="w-full text-left text-sm" data-testid={testId}>
        <caption className="sr-only">{caption}</caption>
        <thead className="text-slate-400">
          <tr>
            {columns.map((c, i) => (
              <th key={c.header} className={`py-1 font-medium ${cellClass(c, i === last)}`}>
                {c.hideHeader ? <span className="sr-only">{c.header}</span> : c.header}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={rowKey(row)} className="border-t border-slate-800 text-slate-200" data-testid={rowTestId}>
              {columns.map((c, i) => (
                <td key={c.header} className={`py-1.5 ${cellClass(c, i === last)}`} data-testid={c.testId}>
                  {c.cell(row)}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
        {footed && (
          <tfoot>
            <tr className="border-t-2 border-slate-600 font-semibold text-slate-100">
              {columns.map((c, i) => (
                <td key={c.header} className={`py-1.5 ${cellClass(c, i === last)}`}>
                  {c.footer}
                </td>
              ))}
            </tr>
          </tfoot>
        )}
      </table>
    </div>
  );
}
