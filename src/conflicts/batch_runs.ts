/**
 * How a batch of memory versions travels in a job's payload (batch_check.ts, check_plan.ts).
 * @module
 */

/**
 * A batch's members as runs `[first id, count, version]`: an import chunk is mostly consecutive
 * new memories at version 1, so its payload is one run, not 500 pairs. The payload is rewritten
 * whenever the job is claimed and each continuation writes a new one: with pairs, a claim round
 * of 40 chunk jobs rewrote ~320 KB of rows.
 */
export function memberRuns(
  members: readonly (readonly [number, number])[],
): [number, number, number][] {
  const runs: [number, number, number][] = [];
  for (const [id, version] of members) {
    const last = runs.at(-1);
    if (last && last[0] + last[1] === id && last[2] === version) last[1]++;
    else runs.push([id, 1, version]);
  }
  return runs;
}

/** The job key of a batch: its first member and a digest of the whole list. */
export function batchKey(members: readonly (readonly [number, number])[]): string {
  let hash = 0x811c9dc5;
  for (const [id, version] of members) {
    for (const value of [id, version]) hash = Math.imul(hash ^ value, 0x01000193) >>> 0;
  }
  const [id, version] = members[0];
  return `batch:${id}:v${version}:${members.length}:${hash.toString(16)}`;
}
