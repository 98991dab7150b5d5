/** Pages whose cut is kept (a few dozen bytes each), the least recently read dropped first. */
const MAX_CUTS = 1024;

/**
 * Where the last read of each recent newest-first page ended (issue 15): the sessions by last
 * activity, the sessions of a tag by when they were tagged. The next read of the same page reads
 * only what lies from that point on, which is exact whatever changed in between: if that read
 * still finds `limit` items, the limit-th newest of the whole page is at or after the old cut, so
 * every item of the page is among those read; if it finds fewer (items deleted, or moved past
 * the window's end), the caller reads the page whole. DuckDB's top-N over a project's sessions
 * (a heap of 50,000 integers) or its group-by over a week of tag facts was most of either read;
 * on ClickHouse the sessions page skips the hour counts that say where a whole read begins.
 */
export class PageCuts {
  readonly #cuts = new Map<string, number>();

  /**
   * The page of `limit` items that `query` names (its project, window, limit…): `read(from)`
   * reads those at or after `from` (the window's own start when `from` is null), newest first;
   * `at` says where an item stands.
   */
  async page<T>(
    query: ReadonlyArray<string | number>,
    limit: number,
    read: (from: number | null) => Promise<T[]>,
    at: (item: T) => number,
  ): Promise<T[]> {
    const key = query.join('\u0000');
    const cut = this.#cuts.get(key);
    let items = cut === undefined ? null : await read(cut);
    if (!items || items.length < limit) items = await read(null);
    this.#cuts.delete(key);
    if (limit > 0 && items.length === limit) {
      this.#cuts.set(key, at(items[limit - 1]!));
      if (this.#cuts.size > MAX_CUTS) this.#cuts.delete(this.#cuts.keys().next().value!);
    }
    return items;
  }
}
