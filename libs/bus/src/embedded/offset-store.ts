import { mkdir, readdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * Committed offsets of every consumer group, one small JSON file per group. A commit writes a
 * temporary file and renames it over the old one, so a kill leaves either the old or the new
 * offsets, never a torn file; the worst case replays one batch (at-least-once).
 */
export class OffsetStore {
  private constructor(
    private readonly dir: string,
    private readonly offsets: Map<string, Record<string, number>>,
  ) {}

  /**
   * Loads every group's file at once: a segment goes only once every group that ever consumed
   * the topic passed it, including groups that have not joined again since a restart (issue 43:
   * the bus' retention tick deletes on its own, before they join).
   */
  static async open(dir: string): Promise<OffsetStore> {
    await mkdir(dir, { recursive: true, mode: 0o700 });
    const store = new OffsetStore(dir, new Map());
    for (const name of await readdir(dir)) {
      if (name.endsWith('.json')) await store.load(decodeURIComponent(name.slice(0, -'.json'.length)));
    }
    return store;
  }

  async committed(group: string, topic: string): Promise<number | null> {
    const topics = await this.load(group);
    return topics[topic] ?? null;
  }

  async commit(group: string, topic: string, offset: number): Promise<void> {
    const topics = { ...(await this.load(group)), [topic]: offset };
    this.offsets.set(group, topics);
    const file = this.file(group);
    await writeFile(`${file}.tmp`, JSON.stringify(topics), { mode: 0o600 });
    await rename(`${file}.tmp`, file);
  }

  /** Every group known to have consumed `topic`, with its committed offset. */
  knownGroups(topic: string): number[] {
    return [...this.offsets.values()].map((t) => t[topic]).filter((o): o is number => o !== undefined);
  }

  private async load(group: string): Promise<Record<string, number>> {
    const cached = this.offsets.get(group);
    if (cached) return cached;
    let topics: Record<string, number> = {};
    try {
      topics = JSON.parse(await readFile(this.file(group), 'utf8')) as Record<string, number>;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
    this.offsets.set(group, topics);
    return topics;
  }

  private file(group: string): string {
    return join(this.dir, `${encodeURIComponent(group)}.json`);
  }
}
