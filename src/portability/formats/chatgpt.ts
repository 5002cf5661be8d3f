/**
 * ChatGPT's data export (`conversations.json`, from Settings › Data controls › Export): an
 * array of conversations (`id` or `conversation_id`, `title`, `create_time` in Unix seconds,
 * `current_node`, `mapping`). `mapping` is a tree of nodes (`id`, `message`, `parent`,
 * `children`); edits and regenerated answers are branches. The conversation as the user last
 * saw it is the path from the root to `current_node`, and only that path is imported.
 *
 * Left out on purpose (counted as passed over): nodes with no message (the root), `system`
 * and `tool` messages, messages the app hides (`metadata.is_visually_hidden_from_conversation`),
 * assistant messages addressed to a tool (`recipient` other than `all`), content that is not
 * text (`code`, `execution_output`, `thoughts`, browsing results…: only `text` and the text
 * parts of `multimodal_text` are kept), empty messages, and every other branch. A message that
 * cannot be read is reported with its JSON path and skipped; the other turns still come in.
 *
 * A conversation in a ChatGPT project carries the project's id (`gizmo_id` starting `g-p-`);
 * the export holds no project names, so its workspace is `chatgpt g-p-…` (rename it with
 * `rename_workspace`).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { chatgptUnits } from "./chatgpt.ts";
 *
 * const node = (id: string, parent: string | null, role: string, text: string) => ({
 *   id, parent, children: [],
 *   message: { id, author: { role }, create_time: 1735689600, content: { content_type: "text", parts: [text] } },
 * });
 * const read = chatgptUnits(JSON.stringify([{
 *   id: "c1", title: "Bread", create_time: 1735689600, current_node: "b",
 *   mapping: { a: node("a", null, "user", "Rye or spelt?"), b: node("b", "a", "assistant", "Spelt.") },
 * }]), { path: "conversations.json", workspacePer: "project" });
 * assert.deepEqual(read.units[0].items.map((item) => item.content), ["Rye or spelt?", "Spelt."]);
 * ```
 * @module
 */
import {
  conversationExportUnits,
  type ConversationReading,
  type ConversationTurn,
} from "./conversation.ts";
import { isRecord, type JsonRecord, RecordError, RecordFields } from "./records.ts";
import type { FormatOptions, FormatRead } from "./types.ts";

/** Content types whose string parts are what the user or the assistant said. */
const TEXT_CONTENT = new Set(["text", "multimodal_text"]);

/** A turn, or why the message is not one. */
type Reading = { turn: ConversationTurn } | { passedOver: true };

function readMessage(fields: RecordFields, nodeId: string): Reading {
  const { record: message, at: where } = fields;
  const author = message.author;
  if (!isRecord(author) || typeof author.role !== "string") {
    throw new RecordError(`${where}.author`, "the message has no author role");
  }
  const role = author.role;
  if (role !== "user" && role !== "assistant") return { passedOver: true };
  const metadata = isRecord(message.metadata) ? message.metadata : {};
  if (metadata.is_visually_hidden_from_conversation === true) return { passedOver: true };
  if (typeof message.recipient === "string" && message.recipient !== "all") {
    return { passedOver: true };
  }
  const content = message.content;
  if (!isRecord(content) || typeof content.content_type !== "string") {
    throw new RecordError(`${where}.content`, "the message has no content_type");
  }
  if (!TEXT_CONTENT.has(content.content_type)) return { passedOver: true };
  if (!Array.isArray(content.parts)) {
    throw new RecordError(`${where}.content.parts`, '"parts" must be an array');
  }
  // Images and files in multimodal messages are objects: only the words come in.
  const text = content.parts.filter((part) => typeof part === "string").join("\n");
  if (text.trim() === "") return { passedOver: true };
  return {
    turn: {
      id: fields.text("id") ?? nodeId,
      role,
      text,
      time: fields.time("create_time"),
      model: typeof metadata.model_slug === "string" ? metadata.model_slug : undefined,
      at: where,
    },
  };
}

/** The node ids from the root to `current_node`, oldest first. */
function activePath(mapping: JsonRecord, current: string, at: string): string[] {
  const path: string[] = [];
  const seen = new Set<string>();
  for (let id: string | null = current; id !== null;) {
    if (seen.has(id)) throw new RecordError(`${at}.mapping`, `the message tree loops at "${id}"`);
    seen.add(id);
    const node: unknown = mapping[id];
    if (!isRecord(node)) {
      throw new RecordError(`${at}.mapping["${id}"]`, `no node "${id}" in the message tree`);
    }
    path.push(id);
    id = typeof node.parent === "string" ? node.parent : null;
  }
  return path.reverse();
}

/** The leaf a conversation without `current_node` ends at: the last child, followed from the root. */
function lastLeaf(mapping: JsonRecord): string | undefined {
  const root = Object.keys(mapping).find((id) => {
    const node = mapping[id];
    return isRecord(node) && (typeof node.parent !== "string" || !(node.parent in mapping));
  });
  let id = root;
  const seen = new Set<string>();
  while (id !== undefined && !seen.has(id)) {
    seen.add(id);
    const node = mapping[id];
    const children = isRecord(node) && Array.isArray(node.children) ? node.children : [];
    const next = children[children.length - 1];
    if (typeof next !== "string" || !(next in mapping)) break;
    id = next;
  }
  return id;
}

function projectOf(conversation: JsonRecord): { id: string } | undefined {
  for (const key of ["gizmo_id", "conversation_template_id"]) {
    const value = conversation[key];
    if (typeof value === "string" && value.startsWith("g-p-")) return { id: value };
  }
  return undefined;
}

/** One conversation of the export: the turns on its active path. */
function readConversation(
  fields: RecordFields,
  skip: (error: RecordError) => void,
): ConversationReading {
  const at = fields.at;
  const id = fields.text("id") ?? fields.text("conversation_id");
  if (!id) throw new RecordError(`${at}.id`, "the conversation has no id");
  const mapping = fields.record.mapping;
  if (!isRecord(mapping)) throw new RecordError(`${at}.mapping`, '"mapping" must be an object');
  const current = fields.text("current_node") ?? lastLeaf(mapping);
  const path = current === undefined ? [] : activePath(mapping, current, at);
  // Every message off the active path is passed over, and so is every one on it that is
  // no turn; a message that cannot be read is reported instead.
  let passedOver = Object.values(mapping)
    .filter((node) => isRecord(node) && isRecord(node.message)).length;
  const turns: ConversationTurn[] = [];
  for (const nodeId of path) {
    const message = (mapping[nodeId] as JsonRecord).message;
    if (!isRecord(message)) continue;
    const where = `${at}.mapping["${nodeId}"].message`;
    try {
      const reading = readMessage(new RecordFields(message, where), nodeId);
      if ("turn" in reading) {
        turns.push(reading.turn);
        passedOver--;
      }
    } catch (error) {
      if (!(error instanceof RecordError)) throw error;
      skip(error);
      passedOver--;
    }
  }
  return {
    conversation: {
      format: "chatgpt",
      id,
      title: fields.text("title") ?? "",
      time: fields.time("create_time"),
      project: projectOf(fields.record),
      turns,
      at,
    },
    passedOver,
  };
}

/** Reads a ChatGPT `conversations.json`; see the module documentation. */
export function chatgptUnits(text: string, options: FormatOptions): FormatRead {
  return conversationExportUnits(text, options, readConversation);
}
