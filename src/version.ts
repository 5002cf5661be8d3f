/** mema's version, printed by `mema version` and sent in the MCP handshake. */
export const VERSION = "0.1.0";
