import { useEffect, useRef, useState, type CSSProperties, type HTMLAttributes, type ReactNode, type RefObject } from 'react';
import './table.css';

/**
 * Attributes a row, a cell or the table may carry besides its content:
 * the data-testid and data-* the e2e tests select on, a title, a dir.
 */
export type DataAttributes = {
  [name: `data-${string}`]: string | number | boolean | null | undefined;
} & Pick<HTMLAttributes<HTMLElement>, 'id' | 'title' | 'dir' | 'lang'>;

/** DataColumn is one column of a DataTable: its head and how a row fills its cell. */
export interface DataColumn<Row> {
  /** key names the column; unique within the table (React's key, the cell's data-column). */
  key: string;
  /** header is the column head, already translated; on a phone, the label before each value. */
  header: string;
  /**
   * cell renders the row's value. It may be anything: text, a badge, a
   * link, a chart (which must shrink with its box, e.g. width 100% or a
   * viewBox: the value's box is never wider than the card), buttons.
   */
  cell: (row: Row) => ReactNode;
  /**
   * primary marks the column that names the row (a model, a period, a
   * name): a row header (th scope=row) in the table, the card's title on
   * a phone, whatever its place among the columns. At most one.
   */
  primary?: boolean;
  /** align puts the value at the start (default), the end (figures) or the centre of its column in the table. */
  align?: 'start' | 'end' | 'center';
  /**
   * hideLabel shows the value without its label on a phone, on a line of
   * its own at the card's full width (a chart, a block of text that
   * explains itself). The column head stays for screen readers.
   */
  hideLabel?: boolean;
  /**
   * actions marks the row's buttons (Rent, Revoke, Settle): in the table a
   * column whose head is visually hidden; on a phone, the card's last line,
   * at full width and wrapping, so no button is ever off-screen. A row
   * without actions renders null there (no line on its card).
   */
  actions?: boolean;
  /**
   * className is added to the box of each of the column's values (e.g.
   * "mono", "amount", "wrap-anywhere"), not to the cell, so that on a phone
   * the label keeps the card's font.
   */
  className?: string;
  /** cellProps gives a cell its data-testid and data-* attributes. */
  cellProps?: (row: Row) => DataAttributes;
}

/** DataTableProps are a table's columns, its rows and how to name it. */
export interface DataTableProps<Row> {
  columns: readonly DataColumn<Row>[];
  rows: readonly Row[];
  /** rowKey is a row's stable identity (its id), React's key. */
  rowKey: (row: Row) => string;
  /** caption names the table, already translated: its caption (visually hidden unless showCaption) and accessible name. */
  caption: string;
  showCaption?: boolean;
  /** empty is shown instead of the table when there are no rows; without it an empty table is drawn. */
  empty?: ReactNode;
  /** rowClassName adds classes to a row (e.g. a state's colour). */
  rowClassName?: (row: Row) => string | undefined;
  /** rowProps gives a row its data-testid and data-* attributes. */
  rowProps?: (row: Row) => DataAttributes;
  /** className is added to the table (class "data-table" is always there). */
  className?: string;
  /** testId is the table's data-testid. */
  testId?: string;
  /** tableProps gives the table more data-* attributes (e.g. data-live). */
  tableProps?: DataAttributes;
  /**
   * stackBelow is where rows become cards: below a 40rem wide box
   * ("narrow", the default), or below 56rem ("wide") for a table of many
   * columns (the marketplace's listings) that would not fit a tablet or a
   * side column as a table. Where the box is wide enough, cards sit side
   * by side.
   */
  stackBelow?: 'narrow' | 'wide';
}

/**
 * DataTable is every table of the SPA: write no <table> by hand.
 *
 * Where its box is at least 40rem wide (56rem with stackBelow="wide") it
 * is a table (.data-table); where it is narrower (a phone, or a narrow
 * column on a desktop) each row is a card: the primary column's value as
 * the card's title, then each other column as a "label  value" line
 * (data-label, drawn by table.css), and the actions column last at full
 * width. The breakpoint is a container query on the component's own box,
 * not the screen's width, so a table in a side column stacks too. Long
 * values wrap inside their card, and a chart (svg, canvas) shrinks to it;
 * a table wider than its box above the breakpoint scrolls inside the box,
 * never the page, with a shadow on each side that has more columns to
 * scroll to (the hint that there is more), and the box can then be
 * focused and scrolled with the keyboard.
 *
 * Semantics are kept in both layouts: the element roles are stated (CSS
 * display changes drop a table's implicit roles in some browsers), and
 * the column heads stay in the accessibility tree on a phone, visually
 * hidden.
 *
 *   <DataTable
 *     caption={t('rentals.title')}
 *     rows={rentals}
 *     rowKey={(r) => r.id}
 *     rowProps={(r) => ({ 'data-testid': 'rental-row', 'data-id': r.id })}
 *     columns={[
 *       { key: 'model', header: t('rentals.field.rental'), primary: true, cell: (r) => r.model },
 *       { key: 'price', header: t('rentals.field.price'), align: 'end', cell: (r) => price(r) },
 *       { key: 'stop', header: t('common.actions'), actions: true, cell: (r) => <button …/> },
 *     ]}
 *   />
 */
export function DataTable<Row>({
  columns,
  rows,
  rowKey,
  caption,
  showCaption = false,
  empty,
  rowClassName,
  rowProps,
  className,
  testId,
  tableProps,
  stackBelow = 'narrow',
}: DataTableProps<Row>) {
  const box = useRef<HTMLDivElement>(null);
  const shown = rows.length > 0 || empty === undefined;
  const more = useScrollEdges(box, shown);
  // While it has the keyboard's focus the box stays focusable, so a table
  // that stops overflowing (a wider window) does not drop the focus.
  const [focused, setFocused] = useState(false);
  if (!shown) return <>{empty}</>;
  const scrolls = more.start || more.end || focused;
  return (
    <div className="data-table-frame" data-more-start={more.start || undefined} data-more-end={more.end || undefined}>
      <div
        ref={box}
        className="data-table-box"
        data-stack-below={stackBelow}
        style={stackBelow === 'wide' ? WIDE : undefined}
        // A box that scrolls is a named region the keyboard can reach
        // and scroll (arrow keys), like any scrolling area.
        tabIndex={scrolls ? 0 : undefined}
        role={scrolls ? 'region' : undefined}
        aria-label={scrolls ? caption : undefined}
        onFocus={(e) => e.target === e.currentTarget && setFocused(true)}
        onBlur={(e) => e.target === e.currentTarget && setFocused(false)}
      >
        <table
          {...tableProps}
          role="table"
          className={classes('data-table', 'dt', className)}
          data-testid={testId}
          data-rows={rows.length}
        >
          <caption className={showCaption ? 'dt-caption' : 'visually-hidden'}>{caption}</caption>
          <thead role="rowgroup">
            <tr role="row">
              {columns.map((c) => (
                <th key={c.key} scope="col" role="columnheader" className={classes(alignClass(c), c.actions && 'dt-actions')}>
                  {c.actions ? <span className="visually-hidden">{c.header}</span> : c.header}
                </th>
              ))}
            </tr>
          </thead>
          <tbody role="rowgroup">
            {rows.map((row) => (
              <tr {...rowProps?.(row)} key={rowKey(row)} role="row" className={rowClassName?.(row) || undefined}>
                {columns.map((c) => {
                  const props = {
                    ...c.cellProps?.(row),
                    'data-column': c.key,
                    'data-label': c.hideLabel || c.actions || c.primary ? undefined : c.header,
                    className: classes(alignClass(c), c.primary && 'dt-primary', c.actions && 'dt-actions', c.hideLabel && 'dt-nolabel') || undefined,
                  };
                  // The value is wrapped so that, on a phone, the label
                  // (td::before) and the value are the two columns of a line
                  // however many elements the value has.
                  const value = <div className={classes('dt-value', c.className)}>{c.cell(row)}</div>;
                  return c.primary ? (
                    <th key={c.key} scope="row" role="rowheader" {...props}>
                      {value}
                    </th>
                  ) : (
                    <td key={c.key} role="cell" {...props}>
                      {value}
                    </td>
                  );
                })}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </div>
  );
}

/** ScrollEdges says on which sides of a scrolling box there is more to scroll to. */
interface ScrollEdges {
  /** start: content lies beyond the inline start (left, or right in Arabic). */
  start: boolean;
  /** end: content lies beyond the inline end. */
  end: boolean;
}

/**
 * useScrollEdges follows box's sideways scroll: as it scrolls, as it or
 * its content changes size (a resized window, rows that arrive, a
 * container query that turns the rows into cards). scrollLeft is 0 at the
 * start and grows negative towards the end in a right-to-left box, so its
 * magnitude is the distance from the start in either direction. shown
 * is whether the box is drawn (a table with no rows may show its empty
 * state instead).
 */
function useScrollEdges(box: RefObject<HTMLElement | null>, shown: boolean): ScrollEdges {
  const [edges, setEdges] = useState<ScrollEdges>(NO_EDGES);
  useEffect(() => {
    const el = box.current;
    if (!el) {
      // The empty state is shown: the next table starts measured afresh.
      setEdges(NO_EDGES);
      return;
    }
    const measure = () => {
      const from = Math.abs(el.scrollLeft);
      const next = { start: from > 1, end: from + el.clientWidth < el.scrollWidth - 1 };
      setEdges((prev) => (prev.start === next.start && prev.end === next.end ? prev : next));
    };
    measure();
    el.addEventListener('scroll', measure, { passive: true });
    const resized = typeof ResizeObserver === 'undefined' ? null : new ResizeObserver(measure);
    resized?.observe(el);
    if (el.firstElementChild) resized?.observe(el.firstElementChild);
    return () => {
      el.removeEventListener('scroll', measure);
      resized?.disconnect();
    };
  }, [box, shown]);
  return edges;
}

const NO_EDGES: ScrollEdges = { start: false, end: false };

// table.css reads --dt-stack on the box (a container style query).
const WIDE = { '--dt-stack': 'wide' } as CSSProperties;

function alignClass<Row>(c: DataColumn<Row>): string | undefined {
  return c.align && c.align !== 'start' ? `dt-align-${c.align}` : undefined;
}

function classes(...names: (string | false | null | undefined)[]): string {
  return names.filter(Boolean).join(' ');
}
