/**
 * Writing under strict workspace isolation, shared by the stdio and HTTP end-to-end tests.
 * @module
 */
import assert from "node:assert/strict";
import type { Envelope } from "./server.ts";

/** Anything that calls a tool action: a stdio `ServerSession` or an HTTP `HttpSession`. */
export interface ToolCaller {
  call(action: string, data?: unknown, tool?: string): Promise<Envelope>;
}

/** Writes a fact in the caller's workspace, confirming the workspace first when it is new. */
export async function rememberConfirmed(
  session: ToolCaller,
  data: Record<string, unknown>,
): Promise<number> {
  let stored = await session.call("remember", data);
  if (stored.data.action_required === "confirm_new_workspace") {
    const confirmed = await session.call("confirm_pending_workspace", {
      workspace: stored.data.workspace,
      reason: "new project",
      authorized: true,
    }, "memory_govern");
    assert.equal(confirmed.data.applied, true, JSON.stringify(confirmed));
    stored = await session.call("remember", data);
  }
  assert.equal(typeof stored.data.memory_id, "number", JSON.stringify(stored));
  return stored.data.memory_id as number;
}
