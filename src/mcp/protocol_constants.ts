/**
 * The MCP protocol revisions mema speaks and the limits of its protocol layer (protocol.ts).
 * Each value says why it is what it is.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { LATEST_PROTOCOL_VERSION, SUPPORTED_PROTOCOL_VERSIONS } from "./protocol_constants.ts";
 *
 * assert.equal(SUPPORTED_PROTOCOL_VERSIONS[0], LATEST_PROTOCOL_VERSION);
 * ```
 * @module
 */

/**
 * The revisions `initialize` accepts, newest first. A client asking for one of them gets it;
 * any other request gets the newest (the lifecycle's negotiation rule), and the client decides
 * whether it can go on. 2025-11-25 is what the MCP TypeScript SDK client 1.32 asks for; mema
 * announces no capability that revision added (tasks, URL elicitation), so its server side is
 * the 2025-06-18 one. 2024-11-05 clients are still common in editors.
 */
export const SUPPORTED_PROTOCOL_VERSIONS: readonly string[] = Object.freeze([
  "2025-11-25",
  "2025-06-18",
  "2025-03-26",
  "2024-11-05",
]);

/** The newest revision mema speaks: the answer to an `initialize` asking for an unknown one. */
export const LATEST_PROTOCOL_VERSION = SUPPORTED_PROTOCOL_VERSIONS[0];

/**
 * The revision a Streamable HTTP request without an `MCP-Protocol-Version` header is taken to
 * speak: the 2025-06-18 transport says a server SHOULD assume 2025-03-26 then.
 */
export const HTTP_ASSUMED_PROTOCOL_VERSION = "2025-03-26";

/**
 * The only revision with JSON-RPC batches: 2025-03-26 added them, 2025-06-18 removed them.
 * A batch is run only when the session (stdio) or the request (HTTP) speaks it.
 */
export const BATCH_PROTOCOL_VERSION = "2025-03-26";

/**
 * Most messages one batch may hold. Matches the SDK transport mema used before (100): each
 * member is a full request, and a batch is answered as a whole, so this bounds how much work
 * one frame can queue ahead of everything else.
 */
export const BATCH_MAX_MESSAGES = 100;

/**
 * Longest client-sent name (a method, an `MCP-Protocol-Version` value) quoted back in an error:
 * the name may be megabytes long.
 */
export const QUOTED_NAME_MAX_CHARS = 100;
