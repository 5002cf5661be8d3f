/**
 * How notices reach responses and how many a call may list or change. Each value says why it
 * is what it is; change one only with the reason written beside it.
 *
 * @example
 * ```ts
 * import { NOTICE_BULK_MAX } from "./notice_constants.ts";
 * import assert from "node:assert/strict";
 * assert.equal(NOTICE_BULK_MAX, 10_000);
 * ```
 * @module
 */

/**
 * Notice bodies a write's answer carries about the memory it just wrote (when it waited for
 * its verdict, `notice_sync_wait_ms`). One: the point of write-time detection is that the
 * writer sees the contradiction it just made; a second body for the same write is what the
 * summary line and `notice list` are for.
 */
export const NOTICE_BODIES_PER_WRITE = 1;
/**
 * Characters of a notice's message shown on a response or in a list. A conflict notice between
 * long documents quotes their rows; 400 keeps a sentence or two of each (the evidence in full
 * is one `conflict_detail` call away, named by `suggested_call`).
 */
export const NOTICE_MESSAGE_PREVIEW_CHARS = 400;
/**
 * Notices one bulk dismiss or resolve changes. 10,000 rows change in one transaction in well
 * under a second on a laptop, so a call never holds the write lock long enough to stall other
 * agents; a larger backlog takes another call (`has_more`).
 */
export const NOTICE_BULK_MAX = 10_000;
/** Notices a list returns when the caller names no limit. */
export const NOTICE_LIST_DEFAULT = 50;
/** Notices one list page may return: a page of previews stays a few tens of kilobytes. */
export const NOTICE_LIST_MAX = 200;
