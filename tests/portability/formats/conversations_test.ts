/**
 * Chat exports: which branch of a ChatGPT tree comes in, what a broken tree or message does,
 * and where conversations go.
 */
import assert from "node:assert/strict";
import { chatgptUnits } from "../../../src/portability/formats/chatgpt.ts";
import { claudeUnits } from "../../../src/portability/formats/claude.ts";

const options = { path: "conversations.json", workspacePer: "project" as const };

function node(id: string, parent: string | null, children: string[], role: string, text: string) {
  return {
    id,
    parent,
    children,
    message: {
      id,
      author: { role },
      create_time: 1735689600,
      content: { content_type: "text", parts: [text] },
    },
  };
}

Deno.test("chatgpt without current_node follows the last child from the root", () => {
  const read = chatgptUnits(
    JSON.stringify([{
      id: "c",
      title: "t",
      mapping: {
        q: node("q", null, ["old", "new"], "user", "Question"),
        old: node("old", "q", [], "assistant", "First answer"),
        new: node("new", "q", [], "assistant", "Regenerated answer"),
      },
    }]),
    options,
  );
  assert.deepEqual(read.units[0].items.map((item) => item.content), [
    "Question",
    "Regenerated answer",
  ]);
  assert.equal(read.passedOver, 1, "the abandoned answer");
});

Deno.test("chatgpt: a tree that loops or names a missing node skips that conversation only", () => {
  const read = chatgptUnits(
    JSON.stringify([
      {
        id: "loop",
        current_node: "a",
        mapping: { a: node("a", "b", [], "user", "A"), b: node("b", "a", ["a"], "user", "B") },
      },
      { id: "gap", current_node: "a", mapping: { a: node("a", "zz", [], "user", "A") } },
      { id: "fine", current_node: "a", mapping: { a: node("a", null, [], "user", "Kept") } },
    ]),
    options,
  );
  assert.deepEqual(read.skipped.map((entry) => [entry.at, entry.reason]), [
    ["$[0].mapping", 'the message tree loops at "a"'],
    ['$[1].mapping["zz"]', 'no node "zz" in the message tree'],
  ]);
  assert.equal(read.units.length, 1);
  assert.equal(read.units[0].items[0].content, "Kept");
});

Deno.test("chatgpt: a custom GPT is no project; a project conversation gets its own workspace", () => {
  const one = (gizmo: string) =>
    chatgptUnits(
      JSON.stringify([{
        id: "c",
        gizmo_id: gizmo,
        current_node: "a",
        mapping: { a: node("a", null, [], "user", "Hi") },
      }]),
      options,
    ).units[0].items[0].workspace;
  assert.equal(one("g-abc123"), "chatgpt");
  assert.equal(one("g-p-abc123"), "chatgpt g-p-abc123");
});

Deno.test("claude: text blocks are the message; a named project is the workspace", () => {
  const read = claudeUnits(
    JSON.stringify({
      conversations: [{
        uuid: "c1",
        name: "Plan",
        project: { uuid: "p1", name: "Garden" },
        chat_messages: [{
          uuid: "m1",
          sender: "human",
          text: "stale text",
          content: [{ type: "text", text: "Part one" }, { type: "tool_use", name: "x" }, {
            type: "text",
            text: "Part two",
          }],
        }],
      }],
    }),
    options,
  );
  const [item] = read.units[0].items;
  assert.equal(item.content, "Part one\n\nPart two");
  assert.equal(item.workspace, "claude Garden");
});

Deno.test("claude: chat_messages that is not a list skips that conversation, named by path", () => {
  const read = claudeUnits(
    JSON.stringify([{ uuid: "c1", chat_messages: "none" }, 5]),
    options,
  );
  assert.deepEqual(read.skipped.map((entry) => entry.at), ["$[0].chat_messages", "$[1]"]);
});

Deno.test("per conversation: the workspace names the title and the id, and --workspace wins", () => {
  const json = JSON.stringify([{
    uuid: "0a9b8c7d-6e5f",
    name: "A very long title that goes on and on about sourdough, rye, spelt and the oven",
    chat_messages: [{ uuid: "m", sender: "human", text: "Hi" }],
  }]);
  const per = claudeUnits(json, { ...options, workspacePer: "conversation" });
  const workspace = per.units[0].items[0].workspace!;
  assert.ok(workspace.startsWith("claude A very long title"), workspace);
  assert.ok(workspace.endsWith(" 0a9b8c7d"), workspace);
  assert.ok(workspace.length < 128);
  const fixed = claudeUnits(json, { ...options, workspace: "chats" });
  assert.equal(fixed.units[0].items[0].workspace, "chats");
});
