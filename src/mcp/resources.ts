/**
 * MCP resources: `memory://current-context` (the caller's workspace digest),
 * `memory://workspace/{name}` (the same for a named workspace, subject to
 * isolation) and `memory://todos` (open todos, then those completed in the last
 * 7 days). All accept `?tokens=N` to change the budget. The digest and the todo
 * list are services (src/views/context_digest.ts, src/views/todos.ts); this
 * module only maps URIs.
 * @module
 */
import { JsonRpcErrorCode, ProtocolError } from "./jsonrpc.ts";
import { isMemaError } from "../errors/mod.ts";
import { CONTEXT_BUDGET_DEFAULT, contextDigest } from "../views/context_digest.ts";
import { todoList } from "../views/todos.ts";
import { workspacesView } from "../views/workspaces.ts";
import type { McpRuntime } from "./runtime.ts";

/** The resource URI of the caller's current context. */
export const CURRENT_CONTEXT_URI = "memory://current-context";
/** The resource URI of the caller's todo list (`?workspace=` for another workspace). */
export const TODOS_URI = "memory://todos";
/** The template of one workspace's context. */
export const WORKSPACE_URI_TEMPLATE = "memory://workspace/{name}";
/** At most this many workspaces are listed as resources (the template reaches the rest). */
const LISTED_WORKSPACES_MAX = 50;

/** `resources/list`: the current context and one resource per visible active workspace. */
export async function listResources(runtime: McpRuntime): Promise<Record<string, unknown>[]> {
  const workspaces = (await workspacesView(runtime.ctx)).workspaces
    .filter((w) => w.state === "active")
    .slice(0, LISTED_WORKSPACES_MAX);
  return [
    {
      uri: CURRENT_CONTEXT_URI,
      name: "current-context",
      title: "Current context",
      description:
        `Your workspace's pinned and locked facts, recent facts, open todos and unresolved conflicts, within ${CONTEXT_BUDGET_DEFAULT} tokens (add ?tokens=N to change). Read it at the start of a session instead of a MEMORY.md file.`,
      mimeType: "text/markdown",
    },
    {
      uri: TODOS_URI,
      name: "todos",
      title: "Todos",
      description:
        `Open todos (memories tagged todo), then those completed in the last 7 days, within ${CONTEXT_BUDGET_DEFAULT} tokens (?tokens=N, ?workspace=name).`,
      mimeType: "text/markdown",
    },
    ...workspaces.map((w) => ({
      uri: `memory://workspace/${encodeURIComponent(w.canonical)}`,
      name: `workspace-${w.canonical}`,
      title: `Workspace ${w.display}`,
      description: `The context digest of workspace "${w.canonical}".`,
      mimeType: "text/markdown",
    })),
  ];
}

/** `resources/templates/list`. */
export function listResourceTemplates(): Record<string, unknown>[] {
  return [{
    uriTemplate: WORKSPACE_URI_TEMPLATE,
    name: "workspace-context",
    title: "A workspace's context",
    description:
      "Pinned and locked facts, recent facts, open todos and unresolved conflicts of one workspace (?tokens=N for the budget).",
    mimeType: "text/markdown",
  }];
}

/** `resources/read` for either resource; anything else is an MCP InvalidParams error. */
export async function readResource(
  runtime: McpRuntime,
  uri: string,
): Promise<Record<string, unknown>> {
  let parsed: URL;
  try {
    parsed = new URL(uri);
  } catch {
    throw new ProtocolError(JsonRpcErrorCode.InvalidParams, `"${uri}" is not a resource URI`);
  }
  const tokensParam = parsed.searchParams.get("tokens");
  const budget = tokensParam === null ? undefined : Number(tokensParam);
  let workspace: string | undefined;
  if (parsed.protocol !== "memory:") {
    throw new ProtocolError(JsonRpcErrorCode.InvalidParams, `no resource "${uri}"`);
  }
  const bare = parsed.pathname === "" || parsed.pathname === "/";
  if (parsed.host === "todos" && bare) {
    return await answerOrInvalid(async () => {
      const list = await todoList(runtime.ctx, {
        workspace: parsed.searchParams.get("workspace") ?? undefined,
        budget,
      });
      return markdownContents(uri, list.text, {
        workspace: list.workspace,
        tokens_estimate: list.tokensEstimate,
        budget: list.budget,
        omitted: list.omitted,
        pending: list.pending.length,
        completed: list.completed.length,
        memory_ids: list.memoryIds,
      });
    });
  }
  // `memory://current-context` parses with host "current-context"; workspaces as a path.
  if (parsed.host === "current-context" && bare) {
    workspace = undefined;
  } else if (parsed.host === "workspace" && parsed.pathname.length > 1) {
    workspace = decodeURIComponent(parsed.pathname.slice(1));
  } else {
    throw new ProtocolError(
      JsonRpcErrorCode.InvalidParams,
      `no resource "${uri}": read ${CURRENT_CONTEXT_URI}, ${TODOS_URI} or memory://workspace/<name>`,
    );
  }
  return await answerOrInvalid(async () => {
    const digest = await contextDigest(runtime.ctx, { workspace, budget });
    return markdownContents(uri, digest.text, {
      workspace: digest.workspace,
      tokens_estimate: digest.tokensEstimate,
      budget: digest.budget,
      omitted: digest.omitted,
      memory_ids: digest.memoryIds,
    });
  });
}

/** One markdown resource content with its metadata. */
function markdownContents(
  uri: string,
  text: string,
  meta: Record<string, unknown>,
): Record<string, unknown> {
  return { contents: [{ uri, mimeType: "text/markdown", text, _meta: meta }] };
}

/** Runs a resource read; a service's refusal becomes an MCP InvalidParams error. */
async function answerOrInvalid(
  read: () => Promise<Record<string, unknown>>,
): Promise<Record<string, unknown>> {
  try {
    return await read();
  } catch (error) {
    if (isMemaError(error)) {
      throw new ProtocolError(
        JsonRpcErrorCode.InvalidParams,
        `${error.reason}${error.hint ? ` (${error.hint})` : ""}`,
      );
    }
    throw error;
  }
}
