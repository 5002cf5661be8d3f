/**
 * Tunables of the JSONL backup (src/memory/backup.ts).
 * @module
 */

/**
 * How much of a saved change a replay-conflict notice quotes, in characters. Notices ride on
 * ordinary responses, so a 2 MiB content must not travel with each of them; the whole saved
 * change is in the replay report and stays in the backup file. 1,000 characters show a typical
 * fact whole (the README's examples are one or two sentences).
 */
export const CONFLICT_NOTICE_PREVIEW_CHARS = 1000;
