/**
 * Two facts remembered one after the other under one subject and workspace, and what write-time
 * detection makes of the second.
 * @module
 */
import { detectConflicts, type DetectionReport } from "../../src/conflicts/detect.ts";
import { defaultStages } from "../../src/conflicts/stages.ts";
import { rememberMemory } from "../../src/memory/remember.ts";
import type { TestContext } from "./context.ts";

/** Remembers `first`, then `second` (subject "team notes", workspace "acme"); detects on `second`. */
export async function detectOnPair(
  t: TestContext,
  first: string,
  second: string,
): Promise<DetectionReport> {
  await rememberMemory(t.ctx, { content: first, subject: "team notes", workspace: "acme" });
  const { memoryId } = await rememberMemory(t.ctx, {
    content: second,
    subject: "team notes",
    workspace: "acme",
  });
  return await detectConflicts(t.ctx, memoryId, defaultStages());
}
