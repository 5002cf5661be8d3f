/**
 * The install root of the MCP TypeScript SDK, pinned by `mcp_sdk.lock`. The tests and the
 * benchmarks drive mema through its client, the way a user's agent does; the server speaks MCP
 * itself (src/mcp/protocol.ts), so `deno task start` never downloads the SDK or the ~90
 * packages it depends on. `deno.json` maps `@modelcontextprotocol/sdk/` to the installed files.
 * JavaScript for the reason `playwright.js` gives.
 * @module
 */
// deno-lint-ignore no-import-prefix -- on purpose: in deno.json it would install for every run
import "npm:@modelcontextprotocol/sdk@1.32.2/client/index.js";
