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
import { type ConversationTurn, conversationUnit } from "./conversation.ts";
import {
  isoTime,
  isRecord,
  type JsonRecord,
  optionalText,
  parseExport,
  RecordError,
  recordList,
} from "./records.ts";
import type { FormatOptions, FormatRead } from "./types.ts";

const SENDERS: Record<string, ConversationTurn["role"]> = { human: "user", assistant: "assistant" };

/** The text a message shows: its text blocks, else its `text` field. */
function messageText(message: JsonRecord, at: string): string {
  const content = message.content;
  if (Array.isArray(content)) {
    const texts = content
      .filter((block) => isRecord(block) && block.type === "text" && typeof block.text === "string")
      .map((block) => (block as { text: string }).text);
    if (texts.length > 0) return texts.join("\n\n");
  }
  return optionalText(message, "text", at) ?? "";
}

/** The project a conversation names, when the export carries one. */
function projectOf(conversation: JsonRecord): { id: string; name?: string } | undefined {
  const project = conversation.project;
  if (isRecord(project) && typeof project.uuid === "string") {
    return { id: project.uuid, name: typeof project.name === "string" ? project.name : undefined };
  }
  if (typeof conversation.project_uuid === "string") return { id: conversation.project_uuid };
  return undefined;
}

/** Reads a Claude `conversations.json`; see the module documentation. */
export function claudeUnits(text: string, options: FormatOptions): FormatRead {
  const read: FormatRead = { units: [], skipped: [], passedOver: 0 };
  const skip = (error: RecordError) =>
    read.skipped.push({ path: options.path, line: 1, at: error.at, reason: error.message });
  let list;
  try {
    list = recordList(parseExport(text), ["conversations"]);
  } catch (error) {
    if (!(error instanceof RecordError)) throw error;
    skip(error);
    return read;
  }
  list.records.forEach((conversation, index) => {
    const at = `${list.at}[${index}]`;
    try {
      if (!isRecord(conversation)) throw new RecordError(at, "a conversation must be an object");
      const id = optionalText(conversation, "uuid", at);
      if (!id) throw new RecordError(`${at}.uuid`, "the conversation has no uuid");
      const messages = conversation.chat_messages;
      if (!Array.isArray(messages)) {
        throw new RecordError(`${at}.chat_messages`, '"chat_messages" must be an array');
      }
      const turns: ConversationTurn[] = [];
      messages.forEach((message, position) => {
        const where = `${at}.chat_messages[${position}]`;
        try {
          if (!isRecord(message)) throw new RecordError(where, "a message must be an object");
          const sender = optionalText(message, "sender", where);
          if (sender === undefined) {
            throw new RecordError(`${where}.sender`, "the message has no sender");
          }
          const role = SENDERS[sender];
          const said = messageText(message, where);
          if (role === undefined || said.trim() === "") {
            read.passedOver++;
            return;
          }
          turns.push({
            id: optionalText(message, "uuid", where) ?? String(position),
            role,
            text: said,
            time: isoTime(message.created_at, "created_at", where),
            at: where,
          });
        } catch (error) {
          if (!(error instanceof RecordError)) throw error;
          skip(error);
        }
      });
      const unit = conversationUnit({
        format: "claude",
        id,
        title: optionalText(conversation, "name", at) ?? "",
        time: isoTime(conversation.created_at, "created_at", at),
        project: projectOf(conversation),
        turns,
        at,
      }, options);
      if (unit) read.units.push(unit);
    } catch (error) {
      if (!(error instanceof RecordError)) throw error;
      skip(error);
    }
  });
  return read;
}
