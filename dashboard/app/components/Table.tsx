import type { ComponentChildren } from 'preact';
import { useId } from 'preact/hooks';

export interface Column<Row> {
  readonly key: string;
  readonly header: string;
  readonly cell: (row: Row) => ComponentChildren;
  /** Right-aligned, tabular figures (amounts). */
  readonly numeric?: boolean;
}

/**
 * A data table with a caption (its accessible name), column headers and one row per item; `empty` shows instead
 * when there is no row. Wide tables scroll inside a region the keyboard can reach and scroll.
 */
export function Table<Row>(props: {
  readonly caption: string;
  /** The caption is read by assistive technology only (a heading above already says it). */
  readonly captionHidden?: boolean;
  readonly columns: readonly Column<Row>[];
  readonly rows: readonly Row[];
  readonly rowKey: (row: Row) => string;
  readonly empty: string;
}) {
  const captionId = useId();
  if (props.rows.length === 0) return <p class="empty">{props.empty}</p>;
  return (
    <div class="table-scroll" role="region" aria-labelledby={captionId} tabIndex={0}>
      <table>
        <caption id={captionId} class={props.captionHidden ? 'visually-hidden' : undefined}>
          {props.caption}
        </caption>
        <thead>
          <tr>
            {props.columns.map((column) => (
              <th key={column.key} scope="col" class={column.numeric ? 'numeric' : undefined}>
                {column.header}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {props.rows.map((row) => (
            <tr key={props.rowKey(row)}>
              {props.columns.map((column) => (
                <td key={column.key} class={column.numeric ? 'numeric' : undefined}>
                  {column.cell(row)}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
