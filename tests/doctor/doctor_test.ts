import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { makeTempHome, runCli, startServer } from "../helpers/server.ts";

interface Finding {
  check_id: string;
  severity: string;
  detail?: string;
}

async function doctor(
  home: ReturnType<typeof makeTempHome>,
  env: Record<string, string> = {},
  args: string[] = [],
) {
  const run = await runCli(home, ["doctor", "--json", ...args], env);
  return { code: run.code, report: JSON.parse(run.stdout) as { findings: Finding[] } };
}

function severity(findings: Finding[], id: string): string | undefined {
  return findings.find((f) => f.check_id === id)?.severity;
}

Deno.test("doctor: a fresh machine with no database yet is healthy", async () => {
  const home = makeTempHome();
  try {
    const { code, report } = await doctor(home);
    assert.equal(code, 0, JSON.stringify(report.findings));
    assert.equal(severity(report.findings, "database.exists"), "info");
    assert.equal(severity(report.findings, "config.identity"), "info");
  } finally {
    home.cleanup();
  }
});

Deno.test("doctor: a fresh install after one remember exits 0 without identity here", async () => {
  const home = makeTempHome();
  try {
    // The client passes identity in its own env block; doctor runs from a shell without it.
    const server = await startServer(home, {
      env: { MEMA_CLIENT: "cursor", MEMA_AGENT_ID: "cursor-main" },
    });
    try {
      const stored = await server.call("remember", {
        content: "Production deploys run on Tuesdays after 14:00 UTC.",
        subject: "deploy schedule",
        workspace: "billing-service",
      });
      assert.equal(stored.ok, true, JSON.stringify(stored));
    } finally {
      await server.close();
    }
    const { code, report } = await doctor(home);
    assert.equal(code, 0, JSON.stringify(report.findings));
    const freshness = report.findings.find((f) => f.check_id === "conflicts.scan_freshness");
    assert.equal(freshness?.severity, "info");
    assert.match(String(freshness?.detail), /created less than 14 days ago/);
  } finally {
    home.cleanup();
  }
});

Deno.test("doctor: a database older than the scan interval and never scanned warns", async () => {
  const home = makeTempHome();
  try {
    const server = await startServer(home);
    try {
      const stored = await server.call("remember", {
        content: "The VPN moved to port 51820.",
        subject: "vpn",
        workspace: "ops",
      });
      assert.equal(stored.ok, true, JSON.stringify(stored));
    } finally {
      await server.close();
    }
    const db = new DatabaseSync(home.dbPath);
    db.exec("UPDATE meta SET value = '2020-01-01T00:00:00.000Z' WHERE key = 'created_at'");
    db.close();
    const { code, report } = await doctor(home);
    assert.equal(code, 1);
    assert.equal(severity(report.findings, "conflicts.scan_freshness"), "warning");
  } finally {
    home.cleanup();
  }
});

Deno.test("doctor: identity from --client/--agent-id is checked; half an identity warns", async () => {
  const home = makeTempHome();
  try {
    let result = await doctor(home, {}, ["--client", "cursor", "--agent-id", "cursor-main"]);
    assert.equal(result.code, 0, JSON.stringify(result.report.findings));
    const identity = result.report.findings.find((f) => f.check_id === "config.identity");
    assert.match(
      String(identity?.detail),
      /client "cursor" \(flag\), agent "cursor-main" \(flag\)/,
    );

    result = await doctor(home, { MEMA_CLIENT: "cursor" });
    assert.equal(result.code, 1);
    assert.equal(severity(result.report.findings, "config.identity"), "warning");

    const bad = await runCli(home, ["doctor", "--client", "has space", "--agent-id", "a"]);
    assert.equal(bad.code, 2, bad.stdout + bad.stderr);
    assert.match(bad.stdout, /--client/);
  } finally {
    home.cleanup();
  }
});

Deno.test("doctor: a healthy database with identity exits 0; --deep runs quick_check", async () => {
  const home = makeTempHome();
  try {
    const env = { MEMA_CLIENT: "c", MEMA_AGENT_ID: "a" };
    const init = await runCli(home, ["serve"], env);
    assert.equal(init.code, 0, init.stderr);
    const { code, report } = await doctor(home, env, ["--deep"]);
    assert.equal(code, 0, JSON.stringify(report.findings));
    assert.equal(severity(report.findings, "database.quick_check"), "info");
    assert.equal(severity(report.findings, "fts.consistency"), "info");
  } finally {
    home.cleanup();
  }
});

Deno.test("doctor: broken and foreign databases are critical (exit 2)", async () => {
  const home = makeTempHome();
  try {
    const env = { MEMA_CLIENT: "c", MEMA_AGENT_ID: "a" };
    Deno.writeTextFileSync(`${home.dir}/garbage.sqlite3`, "not a database ".repeat(500));
    let result = await doctor(home, env, ["--db", `${home.dir}/garbage.sqlite3`]);
    assert.equal(result.code, 2);
    assert.equal(severity(result.report.findings, "database.open"), "critical");

    const foreign = new DatabaseSync(`${home.dir}/foreign.sqlite3`);
    foreign.exec("CREATE TABLE t(x)");
    foreign.close();
    result = await doctor(home, env, ["--db", `${home.dir}/foreign.sqlite3`]);
    assert.equal(result.code, 2);
    assert.equal(severity(result.report.findings, "database.schema_generation"), "critical");
  } finally {
    home.cleanup();
  }
});

Deno.test("doctor: an invalid config is critical and names the key", async () => {
  const home = makeTempHome();
  try {
    Deno.writeTextFileSync(`${home.dir}/bad.json`, '{"db_pth": "/x"}');
    const run = await runCli(home, ["doctor"], { MEMA_CONFIG: `${home.dir}/bad.json` });
    assert.equal(run.code, 2);
    assert.match(run.stdout, /db_pth/);
    assert.match(run.stdout, /did you mean "db_path"/);
  } finally {
    home.cleanup();
  }
});

Deno.test("doctor: the vector chain reports a ready index, then a mismatch", async () => {
  const home = makeTempHome();
  try {
    const env = {
      MEMA_CLIENT: "c",
      MEMA_AGENT_ID: "a",
      MEMA_EMBEDDING_MODEL: "static-wink-100d",
      MEMA_MODELS_DIR: `${home.dir}/models`,
    };
    const server = await startServer(home, { env });
    try {
      await server.call("remember", {
        content: "Backups run nightly at 02:00.",
        subject: "backups",
        workspace: "ops",
      });
      // Up to 30 s: loading the model and embedding take seconds on a busy CI machine.
      for (let i = 0; i < 150; i++) {
        const status = await server.call("status");
        if (status.data.capabilities.vector_state === "ready") break;
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    } finally {
      await server.close();
    }
    const scan = await runCli(home, ["scan"], env);
    assert.equal(scan.code, 0, scan.stderr);
    assert.match(scan.stdout, /scan complete/);
    let result = await doctor(home, env);
    assert.equal(severity(result.report.findings, "conflicts.scan_freshness"), "info");
    assert.equal(severity(result.report.findings, "vector.model_configured"), "info");
    assert.equal(severity(result.report.findings, "vector.model_files"), "info");
    assert.equal(severity(result.report.findings, "vector.model_runtime"), "info");
    assert.equal(
      severity(result.report.findings, "vector.index"),
      "info",
      JSON.stringify(result.report.findings),
    );
    assert.equal(result.code, 0, JSON.stringify(result.report.findings));

    const db = new DatabaseSync(home.dbPath);
    db.exec("UPDATE meta SET value = 'other:100:abc' WHERE key = 'embedding_space'");
    db.close();
    result = await doctor(home, env);
    assert.equal(result.code, 1);
    assert.equal(severity(result.report.findings, "vector.index"), "warning");

    result = await doctor(home, { ...env, MEMA_EMBEDDING_MODEL: "multilingual-e5-small" });
    assert.equal(severity(result.report.findings, "vector.model_files"), "warning");
  } finally {
    home.cleanup();
  }
});

Deno.test("doctor --json: a versioned layout with status and exit code", async () => {
  const home = makeTempHome();
  try {
    const run = await runCli(home, ["doctor", "--json"]);
    assert.equal(run.code, 0, run.stdout);
    const report = JSON.parse(run.stdout);
    assert.equal(report.schema_version, 1);
    assert.equal(report.status, "healthy");
    assert.equal(report.exit_code, 0);
    assert.match(report.mema_version, /^\d+\.\d+\.\d+/);
    assert.equal(typeof report.database, "string");
    for (const finding of report.findings) {
      assert.deepEqual(
        Object.keys(finding).filter((key) => !["fix_hint"].includes(key)).sort(),
        ["check_id", "detail", "severity", "title"],
      );
    }
  } finally {
    home.cleanup();
  }
});

Deno.test("doctor: the HTTP token file is reported, a loose mode warns, a broken file is critical", async () => {
  const home = makeTempHome();
  try {
    const before = await doctor(home);
    assert.equal(severity(before.report.findings, "http.tokens"), "info");
    const add = await runCli(home, [
      "token",
      "add",
      "--client",
      "team",
      "--agent-id",
      "alice",
      "--workspace",
      "billing",
    ]);
    assert.equal(add.code, 0, add.stderr);
    const path = `${home.dir}/data/mema/http_tokens.json`;

    const ready = await doctor(home);
    assert.equal(ready.code, 0, JSON.stringify(ready.report.findings));
    const tokens = ready.report.findings.find((f) => f.check_id === "http.tokens");
    assert.match(JSON.stringify(tokens), /1 per-caller HTTP token/);
    assert.ok(!JSON.stringify(ready.report).includes(add.stdout.trim()), "never the token");

    if (Deno.build.os !== "windows") {
      Deno.chmodSync(path, 0o644);
      const loose = await doctor(home);
      assert.equal(loose.code, 1);
      assert.equal(severity(loose.report.findings, "http.tokens_permissions"), "warning");
      Deno.chmodSync(path, 0o600);
    }

    // A hand edit gone wrong: `serve --http` would refuse to start, so doctor says so first.
    Deno.writeTextFileSync(path, Deno.readTextFileSync(path).replace('"tokens"', '"tokenz"'));
    const broken = await doctor(home);
    assert.equal(broken.code, 2);
    assert.equal(severity(broken.report.findings, "http.tokens"), "critical");
  } finally {
    home.cleanup();
  }
});
