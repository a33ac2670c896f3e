import './bar.css';

/** BarTone is a bar's colour: good (passed, earned), bad (failed) or plain. */
export type BarTone = 'good' | 'bad' | 'plain';

/**
 * Bar is a share drawn as a bar: the one way the SPA draws a part of a
 * whole or a figure against its target inside a table or a card (a
 * benchmark figure over what it should reach, a GPU's share of the
 * earnings, the part of the funds a rental has spent). fill and mark are
 * 0–100 % of the bar, clamped; it runs from the reading start, so it
 * mirrors in Arabic; any share above zero shows at least a sliver. The figure it draws is written beside it in text, so
 * the bar itself is hidden from screen readers; testId and the data-fill
 * attribute let a test read what was drawn.
 */
export function Bar({ fill, mark, tone = 'plain', testId }: { fill: number; mark?: number | null; tone?: BarTone; testId?: string }) {
  const pct = (v: number) => Math.min(100, Math.max(0, Number.isFinite(v) ? v : 0));
  return (
    <span className={`bar bar-${tone}${pct(fill) > 0 ? ' bar-some' : ''}`} aria-hidden="true" data-testid={testId} data-fill={pct(fill)}>
      <span className="bar-fill" style={{ inlineSize: `${pct(fill)}%` }} />
      {mark != null && <span className="bar-mark" style={{ insetInlineStart: `${pct(mark)}%` }} />}
    </span>
  );
}
