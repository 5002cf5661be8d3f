/**
 * `mema import --format`: exports of mem0, mcp-memory-service, basic-memory, Claude and
 * ChatGPT (fixtures written from each format's own code or documentation, see
 * tests/fixtures/import/README.md) go through the real CLI, then the real server finds what
 * was imported: identity, times, tags, metadata and provenance mapped; a second import adds
 * nothing; a dry run counts and keeps nothing; the bad record in the middle of each file is
 * reported by its position and skipped while the rest comes in; conversation turns follow
 * each other.
 */
import assert from "node:assert/strict";
import { type E2eBackend, libraryRowCount, onBothBackends } from "../helpers/e2e_backends.ts";
import { makeTempHome, runCli, type ServerSession, startServer } from "../helpers/server.ts";
import type { TempHome } from "../helpers/server.ts";

const FIXTURES = new URL("../fixtures/import/", import.meta.url).pathname;

type Row = {
  memory_id: number;
  subject: string;
  source_ref?: string;
  tags?: string[];
  event_time?: string;
  follows?: number;
  content?: string;
};

async function rows(server: ServerSession, workspace: string): Promise<Row[]> {
  const page = await server.call("find", { workspace, workspace_only: true, limit: 100 });
  assert.ok(page.ok, JSON.stringify(page.data));
  return page.data.results;
}

async function read(server: ServerSession, id: number) {
  const answer = await server.call("read", { memory_id: id });
  assert.ok(answer.ok, JSON.stringify(answer.data));
  return answer.data;
}

/** Runs a dry run, the import and a second import; checks the counts each prints. */
async function importTwice(
  home: TempHome,
  backend: E2eBackend,
  args: string[],
  expect: { created: number; skippedAt: RegExp },
): Promise<void> {
  const dry = await runCli(home, ["import", ...args, "--dry-run"]);
  assert.equal(dry.code, 1, dry.stderr);
  assert.match(dry.stdout, new RegExp(`would import .*: ${expect.created} new, 0 updated`));
  assert.match(dry.stdout, /; 1 skipped \(dry run/);
  assert.match(dry.stderr, expect.skippedAt);
  if (backend.name === "sqlite") {
    let exists = true;
    try {
      Deno.statSync(home.dbPath);
    } catch {
      exists = false;
    }
    assert.equal(exists, false, "a dry run against no database creates none");
  } else {
    assert.equal(await libraryRowCount(home, backend, "memories"), 0, "a dry run stores nothing");
  }

  const first = await runCli(home, ["import", ...args]);
  assert.equal(first.code, 1, "the bad record makes the exit code 1");
  assert.match(first.stdout, new RegExp(`: ${expect.created} new, 0 updated, 0 unchanged`));
  assert.match(first.stderr, expect.skippedAt);

  const again = await runCli(home, ["import", ...args]);
  assert.match(again.stdout, new RegExp(`: 0 new, 0 updated, ${expect.created} unchanged`));
}

onBothBackends(
  "import --format mem0: user → workspace, agent → author, ids kept, bad record skipped",
  async (home, backend) => {
    await importTwice(home, backend, [`${FIXTURES}mem0.json`, "--format", "mem0"], {
      created: 3,
      skippedAt: /mem0\.json \$\.results\[2\]\.memory: "memory" is missing or empty/,
    });
    const server = await startServer(home);
    try {
      const alice = await rows(server, "alice");
      assert.deepEqual(alice.map((row) => row.subject).sort(), [
        "Is vegetarian and avoids dairy",
        "Trains for a half marathon in October",
      ]);
      const veg = await read(
        server,
        alice.find((r) => r.subject.startsWith("Is veg"))!.memory_id,
      );
      assert.equal(veg.source_ref, "mem0:3c90c3cc-0d44-4b50-8888-8dd25736052a");
      assert.equal(veg.agent_id, "nutrition-bot");
      assert.equal(veg.client, "mem0");
      assert.equal(veg.source_type, "agent_generated");
      assert.equal(veg.event_time, "2025-03-01T17:15:22.123Z");
      assert.equal(veg.metadata.source, "onboarding chat");
      assert.equal(veg.metadata.mem0.run_id, "session-7");
      assert.equal(veg.metadata.mem0.user_id, "alice");
      const race = alice.find((r) => r.subject.startsWith("Trains"))!;
      assert.deepEqual(race.tags, ["sports", "goals"]);
      // No user id: the global pool, written by the agent that stored it.
      const pool = await rows(server, "default");
      assert.equal(pool.length, 1);
      const ops = await read(server, pool[0].memory_id);
      assert.equal(ops.agent_id, "ops-agent");
      assert.equal(ops.metadata.team, "platform");
    } finally {
      await server.close();
    }
  },
);

onBothBackends(
  "import --format mcp-memory-service: tags, times, type and author kept; a non-text content skipped",
  async (home, backend) => {
    await importTwice(
      home,
      backend,
      [
        `${FIXTURES}mcp_memory_service.json`,
        "--format",
        "mcp-memory-service",
        "--workspace",
        "dev",
      ],
      {
        created: 2,
        skippedAt: /\$\.memories\[1\]\.content: "content" must be text, not number/,
      },
    );
    const server = await startServer(home);
    try {
      const found = await rows(server, "dev");
      assert.equal(found.length, 2);
      const billing = await read(
        server,
        found.find((r) => r.subject.startsWith("The billing"))!.memory_id,
      );
      assert.deepEqual(billing.tags, ["billing", "webhooks", "source:workstation"]);
      assert.equal(billing.event_time, "2024-05-01T08:00:00.250Z");
      assert.equal(billing.agent_id, "claude-code");
      assert.equal(billing.client, "mcp-memory-service");
      assert.match(billing.source_ref, /^mcp-memory-service:4b9f0e2d/);
      assert.equal(billing.metadata.project, "billing");
      assert.equal(billing.metadata.mcp_memory_service.memory_type, "decision");
      assert.equal(billing.metadata.mcp_memory_service.source_machine, "workstation");
      const ruff = found.find((r) => r.subject.startsWith("Use ruff"))!;
      assert.deepEqual(ruff.tags, ["python", "tooling"]);
    } finally {
      await server.close();
    }
  },
);

onBothBackends(
  "import --format basic-memory: a note per memory, observation tags, relations kept, broken note skipped",
  async (home, backend) => {
    await importTwice(home, backend, [`${FIXTURES}basic-memory`, "--format", "basic-memory"], {
      created: 2,
      skippedAt: /basic-memory\/broken-note\.md:3: /,
    });
    const server = await startServer(home);
    try {
      // The folder is the basic-memory project, so it names the workspace.
      const found = await rows(server, "basic-memory");
      assert.deepEqual(found.map((row) => row.subject).sort(), [
        "Coffee Brewing Methods",
        "Search Design",
      ]);
      const coffee = await read(
        server,
        found.find((r) => r.subject.startsWith("Coffee"))!.memory_id,
      );
      assert.equal(coffee.source_ref, "basic-memory:coffee-brewing-methods");
      assert.deepEqual(coffee.tags, ["coffee", "brewing", "temperature"]);
      assert.match(coffee.content, /- requires \[\[Proper Grinding Technique\]\]/);
      assert.deepEqual(coffee.metadata.basic_memory.categories, [
        "method",
        "technique",
        "preference",
      ]);
      assert.deepEqual(coffee.metadata.basic_memory.relations[1], {
        type: "requires",
        target: "Proper Grinding Technique",
      });
      const search = await read(
        server,
        found.find((r) => r.subject === "Search Design")!.memory_id,
      );
      assert.equal(search.source_ref, "basic-memory:specs/search-design");
      assert.deepEqual(search.tags, ["search", "design", "ranking"]);
      assert.equal(search.metadata.basic_memory.type, "spec");
      assert.equal(search.metadata.basic_memory.frontmatter.status, "draft");
      assert.deepEqual(search.metadata.basic_memory.relations, [
        { type: "links_to", target: "Semantic Search" },
        { type: "implements", target: "Search Requirements", context: "first milestone" },
        { type: "depends_on", target: "Index Schema" },
      ]);
      // The example inside the code fence is no observation.
      assert.deepEqual(search.metadata.basic_memory.categories, ["decision", "constraint"]);
    } finally {
      await server.close();
    }
  },
);

onBothBackends(
  "import --format claude: turns chained by follows, tool-only and empty turns left out",
  async (home, backend) => {
    await importTwice(home, backend, [
      `${FIXTURES}claude_conversations.json`,
      "--format",
      "claude",
    ], {
      created: 7,
      skippedAt: /\$\[0\]\.chat_messages\[2\]\.sender: the message has no sender/,
    });
    const server = await startServer(home);
    try {
      const found = await rows(server, "claude");
      const turns = (conversation: string) =>
        found
          .filter((row) => row.source_ref?.startsWith(`claude:${conversation}`))
          .sort((a, b) => a.memory_id - b.memory_id);
      const bread = turns("f3d1a2b4");
      assert.deepEqual(bread.map((row) => row.subject), [
        "Sourdough starter schedule (turn 1, user)",
        "Sourdough starter schedule (turn 2, assistant)",
        "Sourdough starter schedule (turn 3, assistant)",
        "Sourdough starter schedule (turn 4, user)",
      ]);
      // The bad message is skipped; the next turn follows the one before it.
      assert.equal(bread[0].follows, undefined);
      for (let turn = 1; turn < bread.length; turn++) {
        assert.equal(bread[turn].follows, bread[turn - 1].memory_id);
      }
      assert.match(bread[2].content!, /acetone smell means it is hungry/);
      // A second "Thanks!" in the workspace is the same fact, stored once; the answer after it
      // follows its own conversation's previous turn, never the other conversation's.
      const rust = turns("5e6f7a8b");
      assert.equal(rust.length, 3);
      assert.equal(rust[1].follows, rust[0].memory_id);
      assert.match(rust[2].content!, /^You're welcome/);
      assert.equal(rust[2].follows, rust[1].memory_id);
      const first = await read(server, bread[0].memory_id);
      assert.equal(first.agent_id, "user");
      assert.equal(first.client, "claude.ai");
      assert.equal(first.source_type, "document_extracted");
      assert.equal(first.event_time, "2025-02-10T18:20:11.482Z");
      assert.equal(
        first.source_ref,
        "claude:f3d1a2b4-5c6d-4e7f-8a9b-0c1d2e3f4a5b/11111111-aaaa-4bbb-8ccc-000000000001",
      );
      const answer = await read(server, bread[1].memory_id);
      assert.equal(answer.source_type, "agent_generated");
      assert.equal(answer.agent_id, "claude");
      assert.equal(found.length, 8 - 1, "the empty conversation adds nothing; Thanks! once");
    } finally {
      await server.close();
    }
  },
);

onBothBackends(
  "import --format claude --workspace-per conversation: one workspace per conversation",
  async (home) => {
    const imported = await runCli(home, [
      "import",
      `${FIXTURES}claude_conversations.json`,
      "--format",
      "claude",
      "--workspace-per",
      "conversation",
    ]);
    // Each conversation its own workspace: both "Thanks!" are stored.
    assert.match(imported.stdout, /: 8 new, 0 updated, 0 unchanged, 0 duplicate/);
    const server = await startServer(home);
    try {
      const bread = await rows(server, "claude-sourdough-starter-schedule-f3d1a2b4");
      assert.equal(bread.length, 4);
      const rust = await rows(server, "claude-rust-lifetimes-question-5e6f7a8b");
      assert.equal(rust.length, 4);
      assert.equal((await rows(server, "claude")).length, 0);
    } finally {
      await server.close();
    }
  },
);

onBothBackends(
  "import --format chatgpt: the active branch only, noise left out, project conversations apart",
  async (home, backend) => {
    await importTwice(home, backend, [
      `${FIXTURES}chatgpt_conversations.json`,
      "--format",
      "chatgpt",
    ], {
      created: 6,
      skippedAt: /\$\[0\]\.mapping\["u-2"\]\.message\.content: the message has no content_type/,
    });
    const passed = await runCli(home, [
      "import",
      `${FIXTURES}chatgpt_conversations.json`,
      "--format",
      "chatgpt",
      "--dry-run",
    ]);
    assert.match(passed.stderr, /passed over 5 message\(s\)/);
    const server = await startServer(home);
    try {
      const rollout = (await rows(server, "chatgpt")).sort((a, b) => a.memory_id - b.memory_id);
      assert.deepEqual(rollout.map((row) => row.content), [
        "kubectl rollout status hangs at 2 of 3 replicas. What should I check first?",
        "Describe the pending pod: a failing readiness probe or an unschedulable pod is the usual cause.",
        "The probe hits /healthz before the app has warmed its cache; raise initialDelaySeconds to 20.",
        "That fixed it, thanks.",
      ]);
      for (let turn = 1; turn < rollout.length; turn++) {
        assert.equal(rollout[turn].follows, rollout[turn - 1].memory_id);
      }
      const answer = await read(server, rollout[1].memory_id);
      assert.equal(answer.agent_id, "gpt-4o");
      assert.equal(answer.client, "chatgpt");
      assert.equal(answer.event_time, "2025-01-15T10:00:30.000Z");
      assert.equal(answer.source_ref, "chatgpt:6789abcd-0123-4567-89ab-cdef01234567/a-1");
      assert.equal(answer.metadata.conversation.title, "Kubernetes rollout stuck");
      const project = await rows(server, "chatgpt-g-p-6779f3e1a2b48191b6c4d5e6f7a8b9c0");
      assert.equal(project.length, 2);
      assert.equal((await read(server, project[0].memory_id)).agent_id, "o3");
    } finally {
      await server.close();
    }
  },
);

Deno.test("import --format: bad command lines exit 2 before anything is opened", async () => {
  const home = makeTempHome();
  try {
    const cases: [string[], RegExp][] = [
      [["--format", "evernote"], /--format must be one of mem0, basic-memory/],
      [["--format", "chatgtp"], /did you mean chatgpt\?/],
      [["--format", "mem0", "--workspace-per", "conversation"], /--workspace-per applies to/],
      [["--format", "claude", "--workspace-per", "chat"], /project or conversation/],
      [
        ["--format", "claude", "--workspace-per", "conversation", "--workspace", "w"],
        /--workspace puts/,
      ],
      [["--format", "mem0", "--split", "headings"], /--split applies to Markdown/],
      [["--workspace-per", "project"], /--workspace-per needs --format/],
    ];
    for (const [flags, message] of cases) {
      const run = await runCli(home, ["import", `${FIXTURES}mem0.json`, ...flags]);
      assert.equal(run.code, 2, `${flags.join(" ")}: ${run.stderr}`);
      assert.match(run.stderr, message);
    }
  } finally {
    home.cleanup();
  }
});
