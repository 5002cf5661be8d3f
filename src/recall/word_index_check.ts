/**
 * The word index is derived data: a copy taken mid-write or a hand edit can leave it behind
 * `memories`. A serving process checks it after its first answer instead of before: a slice of
 * ids at a time ({@linkcode WORD_INDEX_CHECK_SPAN}), giving requests a turn between slices, and
 * rebuilds the index when a slice disagrees. Counting a million memories at open held the
 * first `initialize` ~400 ms (more with the file out of the page cache: it reads the whole table); one slice costs ~2–4 ms.
 * One-shot commands still check at open (src/store/mod.ts), before they read or write.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { openStore } from "../store/mod.ts";
 * import { checkWordIndex } from "./word_index_check.ts";
 *
 * const dir = Deno.makeTempDirSync();
 * const store = await openStore(`${dir}/mema.sqlite3`, { cacheDir: dir, skipVec: true });
 * const outcome = await checkWordIndex(store, { between: () => Promise.resolve() });
 * assert.equal(outcome.rebuilt, false);
 * store.close();
 * Deno.removeSync(dir, { recursive: true });
 * ```
 * @module
 */
import { logWarn } from "../platform/log.ts";
import type { Store } from "../store/mod.ts";
import { WORD_INDEX_CHECK_SPAN } from "./constants.ts";

/** What the check found. */
export interface WordIndexCheck {
  /** Memories (not purged) the slices counted before the check ended. */
  checked: number;
  /** True when a slice disagreed and the index was rebuilt. */
  rebuilt: boolean;
  /** True when `stopped` ended the check before the last slice. */
  stopped: boolean;
}

/**
 * Checks the word index against `memories` a slice at a time and rebuilds it when a slice
 * disagrees. `between` runs between slices (the job worker's `yieldToRequests`); `stopped`
 * ends the check early (the process is closing).
 */
export async function checkWordIndex(
  store: Store,
  options: { between: () => Promise<void>; stopped?: () => boolean; span?: number },
): Promise<WordIndexCheck> {
  const span = options.span ?? WORD_INDEX_CHECK_SPAN;
  let afterId = 0;
  let checked = 0;
  for (;;) {
    if (options.stopped?.()) return { checked, rebuilt: false, stopped: true };
    const slice = await store.read(async (tx) => await tx.wordIndexSlice(afterId, span));
    if (slice.memories !== slice.indexed) {
      logWarn(
        `the full-text index of ${
          store.backend?.database ?? store.path
        } has ${slice.indexed} rows for ${slice.memories} memories among ids ${
          afterId + 1
        }–${slice.throughId}; rebuilding it`,
      );
      const indexed = await store.write(async (tx) => await tx.rebuildWordIndex());
      logWarn(`rebuilt the full-text index: ${indexed} memories`);
      return { checked: checked + slice.memories, rebuilt: true, stopped: false };
    }
    checked += slice.memories;
    if (slice.last) return { checked, rebuilt: false, stopped: false };
    afterId = slice.throughId;
    await options.between();
  }
}
