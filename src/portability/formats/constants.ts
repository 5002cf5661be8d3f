/**
 * Tunables of the importers from other tools. Each number says where it came from.
 * @module
 */

/**
 * Longest subject made from a fact's own text (mem0 and mcp-memory-service facts have no
 * title): a row of `find` shows about this much on one line, and mem0's facts are mostly
 * shorter ("Prefers dark mode", "Is allergic to peanuts"), so most keep their whole text.
 */
export const FACT_SUBJECT_CHARS = 100;

/**
 * Characters of a conversation's title kept in its workspace name (`--workspace-per
 * conversation`): with the format and 8 characters of the id it stays far under the
 * 128-character workspace limit, and a chat title rarely runs longer (ChatGPT titles its
 * chats in a few words).
 */
export const CONVERSATION_WORKSPACE_TITLE_CHARS = 60;

/** Characters of a conversation's id kept in its workspace name: 8 hex digits of a UUID. */
export const CONVERSATION_WORKSPACE_ID_CHARS = 8;

/**
 * Relations (`- relation_type [[Target]]`, inline `[[links]]`) of one basic-memory note kept
 * in its metadata: 200 of them take about 10 KB of JSON, well inside the 64 KB metadata limit,
 * so a hub note with more is still imported (its text keeps every relation).
 */
export const BASIC_MEMORY_RELATIONS_KEPT = 200;
