/** HistoryPoint is what the history chart needs of one result. */
export interface HistoryPoint {
  id: string;
  at: string;
  score: number | null;
  consistency: number | null;
}

/** ScoreHistory is a GPU's results lined up for a chart, oldest first. */
export interface ScoreHistory {
  /** xs are the results' times, seconds since the epoch, ascending. */
  xs: number[];
  /** score is each result's score, 0–100, null where it was not scored. */
  score: (number | null)[];
  /** consistencyPct is each result's consistency as a percentage of the GPU's usual (100 %), or null. */
  consistencyPct: (number | null)[];
}

/**
 * scoreHistory orders a history (the API sends it newest first) oldest to
 * newest, as a time axis runs, with ties in a stable order (by id), and
 * drops results whose time does not parse.
 */
export function scoreHistory(history: readonly HistoryPoint[]): ScoreHistory {
  const points = history
    .map((h) => ({ h, t: Date.parse(h.at) }))
    .filter((p) => Number.isFinite(p.t))
    .sort((a, b) => a.t - b.t || a.h.id.localeCompare(b.h.id, 'en', { numeric: true }));
  return {
    xs: points.map((p) => p.t / 1000),
    score: points.map((p) => p.h.score),
    consistencyPct: points.map((p) => (p.h.consistency === null ? null : Math.round(p.h.consistency * 1000) / 10)),
  };
}

/**
 * historyRange is the value axis's range: 0 to 100, or up to the next ten
 * above a consistency over 100 % (a GPU running better than usual).
 */
export function historyRange(h: ScoreHistory): [number, number] {
  const values = [...h.score, ...h.consistencyPct].filter((v): v is number => v !== null);
  const top = Math.max(100, ...values);
  return [0, Math.ceil(top / 10) * 10];
}
