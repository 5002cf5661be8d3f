/**
 * Guidance for agents: the `agent_onboarding` prompt and the `help` topics
 * that explain what to store, the trust levels and the authorization gate.
 * @module
 */

/** How an agent should use mema, in one page. */
export const AGENT_ONBOARDING =
  `You have a long-term memory: the mema MCP tools. Use them instead of re-reading notes.

What to store (memory remember): durable facts that will matter in a later session — decisions, preferences, conventions, names and roles, deadlines, versions, addresses, how-tos, open todos (tag them "todo"). One fact or one coherent note per memory, verbatim (do not paraphrase what the user said), with a short subject, the project as workspace ("default" for facts that hold everywhere), a few tags, and event_time when the fact became true. Do not store secrets, passwords or tokens, nor chit-chat. When you store a conversation turn by turn or a document section by section, pass follows: <memory_id of the previous turn or section>, so a reply is found through the question it answers.

Start of a session: read the resource memory://current-context (your workspace's pinned and locked facts, recent facts, open todos and unresolved conflicts, within about 2,000 tokens) instead of a MEMORY.md file; memory://workspace/<name> gives the same for another workspace. memory://todos lists the open todos (memories tagged todo), then those completed in the last 7 days; complete one by removing its todo tag (update with tags_only). List workspaces with memory_review {"view": "workspaces"} before creating a new one: a write to a name close to an existing one answers with write_hints.did_you_mean, and under strict isolation a new workspace waits for the user's confirmation (action_required: "confirm_new_workspace").

When to search (memory find / batch_find): at the start of a task, before you answer from memory, and before storing (search first, then update the existing memory rather than adding a near-copy). Results are previews; read a span or use content_mode "hits" for the exact passages. The size block tells you what the answer cost.

When facts change: update the memory (old_text + new_text for a small change, pass expected_version from your last read). Every earlier version stays in history (memory_review history). To replace one memory by another, memory_govern retire with superseded_by.

Trust: source_type says where a fact came from — user_confirmed (the user said or approved it; locked) > document_extracted (from a file or page) > agent_generated (your own conclusion; the default) > unknown. Prefer higher trust, then newer event_time, when facts disagree, and say which you relied on.

Authorization: protected and locked memories, confirming, retiring, merging, history cleanup and backup replay need authorized: true — your assertion that the user approved. Without it nothing changes and the answer says action_required: "ask_user_for_authorization" with the impact: show that impact to the user, ask, and repeat the call with authorized: true only if they agree. Never set authorized: true on your own.

Responses: every answer is {ok, mode, degraded, warnings, data}. Read the warnings (they say when recall is degraded and how to fix it) and the notices, and mention them to the user when they matter. If mode is "jsonl_backup" the database could not be written: your write was saved and will be applied later; tell the user.`;

/** The trust model, for `help {topic: "trust"}`. */
export const TRUST_TOPIC = `Trust levels (source_type), highest first:
- user_confirmed: the user stated or approved it. Always locked. Storing a fact as user_confirmed, or promoting one (memory_govern confirm), needs authorized: true.
- document_extracted: taken from a document, file or page (give source_ref).
- agent_generated: the agent's own inference or summary (the default).
- unknown: provenance lost (imports).
Protection (protection_level): normal (any agent may update), protected and locked (updates need authorized: true). Recall ranks higher trust and locked facts slightly higher among equally relevant results; superseded facts come last and only when asked for. When two facts disagree, the rule is: higher trust wins; at equal trust the newer event_time wins.
Every write records who made it (client, agent_id), when (ingest_time), and every earlier version with who replaced it and why.`;

/** The authorization gate, for `help {topic: "authorization"}`. */
export const AUTHORIZATION_TOPIC =
  `authorized: true is the caller's assertion that the user approved this specific change. It is required to: update a protected or locked memory, store a user_confirmed fact, confirm, retire, merge_memories, cleanup_history, and replay_backup.
Without it the call writes nothing and returns ok: true with data.applied = false, data.action_required = "ask_user_for_authorization" and data.impact, a plain statement of what would happen. Show the impact to the user; repeat the same call with authorized: true only after they agree. Every authorized action is recorded in the audit log (memory_review audit) with the agent, client, time and reason.`;

/** The `memory` tool's help topics besides its actions. */
export const MEMORY_HELP_TOPICS: Record<string, string> = {
  agent_onboarding: AGENT_ONBOARDING,
  trust: TRUST_TOPIC,
  authorization: AUTHORIZATION_TOPIC,
};
