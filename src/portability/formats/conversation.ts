/**
 * A conversation from a chat export (Claude, ChatGPT) as import units: one memory per turn,
 * in order, each `follows` the turn before it; the workspace is the conversation's project,
 * or the conversation itself, as the user chose.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { conversationUnit } from "./conversation.ts";
 *
 * const unit = conversationUnit({
 *   format: "claude",
 *   id: "c0ffee00-1111-2222-3333-444455556666",
 *   title: "Trip plan",
 *   at: "$[0]",
 *   turns: [
 *     { id: "m1", role: "user", text: "Book the train.", at: "$[0].chat_messages[0]" },
 *     { id: "m2", role: "assistant", text: "Booked.", at: "$[0].chat_messages[1]" },
 *   ],
 * }, { path: "conversations.json", workspacePer: "project" })!;
 * assert.equal(unit.items.length, 2);
 * assert.equal(unit.items[1].followsPrevious, true);
 * assert.equal(unit.items[0].sourceRef, "claude:c0ffee00-1111-2222-3333-444455556666/m1");
 * ```
 * @module
 */
import { SUBJECT_MAX_CHARS } from "../../memory/limits.ts";
import type { ImportItem, ImportUnit } from "../import_types.ts";
import { shortenSubject } from "../sources.ts";
import {
  CONVERSATION_WORKSPACE_ID_CHARS,
  CONVERSATION_WORKSPACE_TITLE_CHARS,
} from "./constants.ts";
import { walkRecords } from "./record_walk.ts";
import { fieldsOf, type RecordError, type RecordFields } from "./records.ts";
import type { FormatOptions, FormatRead } from "./types.ts";

/** One turn of a conversation: what the user or the assistant said. */
export interface ConversationTurn {
  /** The message's id in the export. */
  id: string;
  role: "user" | "assistant";
  text: string;
  /** ISO time the message was written. */
  time?: string;
  /** The model that wrote an assistant turn, when the export says. */
  model?: string;
  /** Where the message is in the export (a JSON path). */
  at: string;
}

/** A conversation read from an export, noise already left out. */
export interface Conversation {
  format: "claude" | "chatgpt";
  id: string;
  title: string;
  /** ISO time the conversation started. */
  time?: string;
  /** The project (ChatGPT project, Claude project) the conversation belongs to. */
  project?: { id: string; name?: string };
  turns: ConversationTurn[];
  at: string;
}

/** The name the app gives itself: the client of every imported turn. */
const CLIENT = { claude: "claude.ai", chatgpt: "chatgpt" } as const;

/** The workspace a conversation goes to; undefined leaves it to the import's default. */
export function conversationWorkspace(
  conversation: Conversation,
  options: FormatOptions,
): string | undefined {
  if (options.workspace !== undefined) return options.workspace;
  if (options.workspacePer === "conversation") {
    const title = shortenSubject(conversation.title, CONVERSATION_WORKSPACE_TITLE_CHARS)
      .replace(/…$/, "");
    const id = conversation.id.replace(/[^0-9a-z]/gi, "").slice(0, CONVERSATION_WORKSPACE_ID_CHARS);
    return `${conversation.format} ${title} ${id}`;
  }
  const project = conversation.project;
  if (project) return `${conversation.format} ${project.name ?? project.id}`;
  return conversation.format;
}

/**
 * The import unit of a conversation: its turns in order, each following the one before.
 * Undefined for a conversation with no turn left.
 */
export function conversationUnit(
  conversation: Conversation,
  options: FormatOptions,
): ImportUnit | undefined {
  if (conversation.turns.length === 0) return undefined;
  const workspace = conversationWorkspace(conversation, options);
  const title = conversation.title.trim() === "" ? "Untitled conversation" : conversation.title;
  const items: ImportItem[] = conversation.turns.map((turn, index) => ({
    subject: shortenSubject(`${title} (turn ${index + 1}, ${turn.role})`, SUBJECT_MAX_CHARS),
    content: turn.text,
    workspace,
    tags: ["conversation", turn.role],
    sourceType: options.sourceType ??
      (turn.role === "user" ? "document_extracted" : "agent_generated"),
    sourceRef: `${conversation.format}:${conversation.id}/${turn.id}`,
    eventTime: turn.time ?? conversation.time,
    metadata: {
      conversation: {
        format: conversation.format,
        id: conversation.id,
        title: conversation.title,
        ...(conversation.project ? { project: conversation.project } : {}),
      },
      turn: index + 1,
      role: turn.role,
      message_id: turn.id,
      ...(turn.model ? { model: turn.model } : {}),
    },
    origin: {
      agentId: turn.role === "user" ? "user" : turn.model ?? conversation.format,
      client: CLIENT[conversation.format],
    },
    followsPrevious: index > 0,
    line: 1,
    at: turn.at,
  }));
  return { path: options.path, line: 1, items };
}

/** A conversation a chat export holds, and how many of its messages were no turn. */
export interface ConversationReading {
  conversation: Conversation;
  passedOver: number;
}

/**
 * Reads a chat export's `conversations.json`: each conversation by the format's
 * `readConversation` (which reports a message it cannot read with `skip` and goes on), then
 * its turns as one unit. A conversation that cannot be read is reported and skipped.
 */
export function conversationExportUnits(
  text: string,
  options: FormatOptions,
  readConversation: (
    fields: RecordFields,
    skip: (error: RecordError) => void,
  ) => ConversationReading,
): FormatRead {
  return walkRecords(text, { path: options.path, keys: ["conversations"] }, (record, at, walk) => {
    const fields = fieldsOf(record, at, "a conversation");
    const { conversation, passedOver } = readConversation(fields, walk.skip);
    return { unit: conversationUnit(conversation, options), passedOver };
  });
}
