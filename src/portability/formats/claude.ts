/**
 * Claude's data export (`conversations.json`, from Settings › Privacy › Export data): an array
 * of conversations (`uuid`, `name`, `created_at`, `chat_messages`), each message with `uuid`,
 * `sender` (`human` or `assistant`), `text`, `content` blocks (`text`, `tool_use`,
 * `tool_result`…) and `created_at`. Turns come in the order the export lists them.
 *
 * Left out on purpose (counted as passed over): messages of any other sender, and messages
 * with no text (only tool calls, tool results or attachments). A message that is not an
 * object, or has no sender, is reported with its JSON path and skipped; the conversation's
 * other turns still come in, chained.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { claudeUnits } from "./claude.ts";
 *
 * const read = claudeUnits(JSON.stringify([{
 *   uuid: "5a1e",
 *   name: "Garden",
 *   created_at: "2025-04-01T10:00:00Z",
 *   chat_messages: [
 *     { uuid: "a", sender: "human", text: "Water the basil daily?", created_at: "2025-04-01T10:00:00Z" },
 *     { uuid: "b", sender: "assistant", text: "Every two days.", created_at: "2025-04-01T10:00:05Z" },
 *   ],
 * }]), { path: "conversations.json", workspacePer: "project" });
 * assert.equal(read.units[0].items.length, 2);
 * assert.equal(read.units[0].items[0].workspace, "claude");
 * ```
 * @module
 */
import {
  conversationExportUnits,
  type ConversationReading,
  type ConversationTurn,
} from "./conversation.ts";
import { fieldsOf, isRecord, RecordError, type RecordFields } from "./records.ts";
import type { FormatOptions, FormatRead } from "./types.ts";

const SENDERS: Record<string, ConversationTurn["role"]> = { human: "user", assistant: "assistant" };

/** The text a message shows: its text blocks, else its `text` field. */
function messageText(message: RecordFields): string {
  const content = message.record.content;
  if (Array.isArray(content)) {
    const texts = content
      .filter((block) => isRecord(block) && block.type === "text" && typeof block.text === "string")
      .map((block) => (block as { text: string }).text);
    if (texts.length > 0) return texts.join("\n\n");
  }
  return message.text("text") ?? "";
}

/** The project a conversation names, when the export carries one. */
function projectOf(
  conversation: Record<string, unknown>,
): { id: string; name?: string } | undefined {
  const project = conversation.project;
  if (isRecord(project) && typeof project.uuid === "string") {
    return { id: project.uuid, name: typeof project.name === "string" ? project.name : undefined };
  }
  if (typeof conversation.project_uuid === "string") return { id: conversation.project_uuid };
  return undefined;
}

/** One conversation of the export, its turns in the order the export lists them. */
function readConversation(
  fields: RecordFields,
  skip: (error: RecordError) => void,
): ConversationReading {
  const at = fields.at;
  const id = fields.text("uuid");
  if (!id) throw new RecordError(`${at}.uuid`, "the conversation has no uuid");
  const messages = fields.record.chat_messages;
  if (!Array.isArray(messages)) {
    throw new RecordError(`${at}.chat_messages`, '"chat_messages" must be an array');
  }
  const turns: ConversationTurn[] = [];
  let passedOver = 0;
  messages.forEach((raw, position) => {
    const where = `${at}.chat_messages[${position}]`;
    try {
      const message = fieldsOf(raw, where, "a message");
      const sender = message.text("sender");
      if (sender === undefined) {
        throw new RecordError(`${where}.sender`, "the message has no sender");
      }
      const role = SENDERS[sender];
      const said = messageText(message);
      if (role === undefined || said.trim() === "") {
        passedOver++;
        return;
      }
      turns.push({
        id: message.text("uuid") ?? String(position),
        role,
        text: said,
        time: message.time("created_at"),
        at: where,
      });
    } catch (error) {
      if (!(error instanceof RecordError)) throw error;
      skip(error);
    }
  });
  return {
    conversation: {
      format: "claude",
      id,
      title: fields.text("name") ?? "",
      time: fields.time("created_at"),
      project: projectOf(fields.record),
      turns,
      at,
    },
    passedOver,
  };
}

/** Reads a Claude `conversations.json`; see the module documentation. */
export function claudeUnits(text: string, options: FormatOptions): FormatRead {
  return conversationExportUnits(text, options, readConversation);
}
