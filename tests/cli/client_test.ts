/**
 * `mema client NAME [--http]`: the exact entry for each client, identity filled in, running
 * the installed `mema` by its full path, or this checkout through npx (and saying so).
 * Spawns the real main.ts.
 * @module
 */
import assert from "node:assert/strict";
import { MAIN, makeTempHome, runCli } from "../helpers/server.ts";

const BASIC_PATH = { PATH: "/usr/bin:/bin" };

function installFakeMema(home: { dir: string }): string {
  const bin = `${home.dir}/.local/bin`;
  Deno.mkdirSync(bin, { recursive: true });
  Deno.writeTextFileSync(`${bin}/mema`, "#!/bin/sh\n");
  Deno.chmodSync(`${bin}/mema`, 0o755);
  return `${bin}/mema`;
}

Deno.test("client: entries run the installed mema by its full path, with identity", async () => {
  const home = makeTempHome();
  try {
    const mema = installFakeMema(home);
    const cursor = await runCli(home, ["client", "cursor"], BASIC_PATH);
    assert.equal(cursor.code, 0, cursor.stderr);
    assert.deepEqual(JSON.parse(cursor.stdout), {
      mcpServers: {
        mema: {
          command: mema,
          args: ["serve"],
          env: { MEMA_CLIENT: "cursor", MEMA_AGENT_ID: "cursor-main" },
        },
      },
    });
    assert.match(cursor.stderr, /~\/\.cursor\/mcp\.json/);
    assert.doesNotMatch(cursor.stderr, /not installed/);

    const desktop = await runCli(home, ["client", "claude-desktop", "--agent-id", "desk-1"], {
      ...BASIC_PATH,
    });
    assert.equal(desktop.code, 0, desktop.stderr);
    assert.deepEqual(JSON.parse(desktop.stdout).mcpServers.mema.env, {
      MEMA_CLIENT: "claude-desktop",
      MEMA_AGENT_ID: "desk-1",
    });

    const code = await runCli(home, ["client", "claude-code"], BASIC_PATH);
    assert.equal(code.code, 0, code.stderr);
    assert.equal(
      code.stdout.trim(),
      "claude mcp add mema --env MEMA_CLIENT=claude-code --env MEMA_AGENT_ID=claude-code-main " +
        `\\\n  -- ${mema} serve`,
    );

    const codex = await runCli(home, ["client", "codex"], BASIC_PATH);
    assert.equal(codex.code, 0, codex.stderr);
    assert.equal(
      codex.stdout.trim(),
      [
        "[mcp_servers.mema]",
        `command = "${mema}"`,
        `args = ["serve"]`,
        `env = { "MEMA_CLIENT" = "codex", "MEMA_AGENT_ID" = "codex-main" }`,
      ].join("\n"),
    );
  } finally {
    home.cleanup();
  }
});

Deno.test("client: without an installed mema the entry runs the checkout and says so", async () => {
  const home = makeTempHome();
  try {
    const run = await runCli(home, ["client", "cursor"], BASIC_PATH);
    assert.equal(run.code, 0, run.stderr);
    const entry = JSON.parse(run.stdout).mcpServers.mema;
    assert.equal(entry.command, "npx");
    assert.deepEqual(entry.args, [
      "-y",
      `deno@${Deno.version.deno}`,
      "run",
      "--allow-all",
      MAIN,
      "serve",
    ]);
    assert.match(run.stderr, /mema is not installed/);
    assert.match(run.stderr, /task install/);
  } finally {
    home.cleanup();
  }
});

Deno.test("client --http: URL and identity headers of the shared server", async () => {
  const home = makeTempHome();
  try {
    const cursor = await runCli(home, ["client", "cursor", "--http", "--port", "8765"], BASIC_PATH);
    assert.equal(cursor.code, 0, cursor.stderr);
    assert.deepEqual(JSON.parse(cursor.stdout).mcpServers.mema, {
      url: "http://127.0.0.1:8765/mcp",
      headers: { "X-Mema-Client": "cursor", "X-Mema-Agent-Id": "cursor-main" },
    });
    const code = await runCli(home, ["client", "claude-code", "--http"], BASIC_PATH);
    assert.match(
      code.stdout,
      /^claude mcp add --transport http mema http:\/\/127\.0\.0\.1:8000\/mcp/,
    );
    assert.match(code.stdout, /--header "X-Mema-Agent-Id: claude-code-main"/);
    const desktop = await runCli(home, ["client", "claude-desktop", "--http"], BASIC_PATH);
    const bridge = JSON.parse(desktop.stdout).mcpServers.mema;
    assert.equal(bridge.command, "npx");
    assert.ok(bridge.args.includes("X-Mema-Client:claude-desktop"), bridge.args);
    const codex = await runCli(home, ["client", "codex", "--http"], {
      ...BASIC_PATH,
      MEMA_HTTP_TOKEN: "t".repeat(40),
    });
    assert.match(codex.stdout, /^url = "http:\/\/127\.0\.0\.1:8000\/mcp"$/m);
    assert.match(codex.stdout, /^bearer_token_env_var = "MEMA_HTTP_TOKEN"$/m);
    assert.doesNotMatch(codex.stdout, /tttt/, "the token itself is never printed");
    const wrong = await runCli(home, ["client", "cursor", "--port", "8765"], BASIC_PATH);
    assert.equal(wrong.code, 2);
    assert.match(wrong.stderr, /--host and --port go with --http/);
  } finally {
    home.cleanup();
  }
});
