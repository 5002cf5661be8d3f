/**
 * A new user's first start installs only what lexical recall needs: on a clean clone (git
 * clone of this checkout, Deno's npm cache as it is), `deno task start` leaves no model stack
 * (transformers.js, onnxruntime, sharp, the wink vectors) and no test tool (playwright-core, the
 * MCP SDK whose client the tests drive) in node_modules and no advice to approve build scripts; `setup --model` installs the stack, says
 * so, and leaves the checkout clean.
 * @module
 */
import assert from "node:assert/strict";
import { ROOT } from "../helpers/server.ts";

const MODEL_STACK = /^(@huggingface\+|onnxruntime|sharp@|@img\+sharp|wink-)/;
/** Tools only the tests and the build use (scripts/dev_tools.ts): playwright, the MCP SDK. */
const TEST_TOOLS = /^(playwright|@modelcontextprotocol)/;

function stackPackages(dir: string): string[] {
  return [...Deno.readDirSync(`${dir}/node_modules/.deno`)]
    .map((entry) => entry.name)
    .filter((name) => MODEL_STACK.test(name));
}

async function run(args: string[], cwd: string, env: Record<string, string>) {
  const output = await new Deno.Command(Deno.execPath(), {
    args,
    cwd,
    env: { NO_COLOR: "1", ...env },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
  return { code: output.code, stdout: decode(output.stdout), stderr: decode(output.stderr) };
}

Deno.test("deno.json and deno.lock name no package of the model stack", () => {
  const config = JSON.parse(Deno.readTextFileSync(`${ROOT}/deno.json`));
  for (const specifier of Object.values(config.imports) as string[]) {
    assert.doesNotMatch(
      specifier,
      /^npm:.*(transformers|onnxruntime|sharp|wink|playwright|@modelcontextprotocol)/,
      specifier,
    );
  }
  const lock = JSON.parse(Deno.readTextFileSync(`${ROOT}/deno.lock`));
  for (const name of Object.keys(lock.npm ?? {})) {
    assert.doesNotMatch(name.replace("/", "+"), MODEL_STACK, `deno.lock pins ${name}`);
    assert.doesNotMatch(name, TEST_TOOLS, `deno.lock pins ${name}`);
  }
});

Deno.test("a clean clone's first task start installs no model stack; setup --model does", async () => {
  const clone = Deno.makeTempDirSync({ prefix: "mema-light-start-" });
  try {
    const cloned = await new Deno.Command("git", {
      args: ["clone", "--quiet", "--no-hardlinks", ROOT, clone],
      stdout: "null",
      stderr: "piped",
    }).output();
    assert.ok(cloned.success, new TextDecoder().decode(cloned.stderr));
    // The clone holds what is committed; this test runs against the working tree.
    for (const file of ["deno.json", "deno.lock"]) {
      Deno.copyFileSync(`${ROOT}/${file}`, `${clone}/${file}`);
    }
    Deno.removeSync(`${clone}/src`, { recursive: true });
    await new Deno.Command("cp", { args: ["-r", `${ROOT}/src`, `${clone}/src`] }).output();
    const env = {
      PATH: Deno.env.get("PATH") ?? "",
      HOME: Deno.env.get("HOME") ?? clone,
      ...(Deno.env.get("DENO_DIR") ? { DENO_DIR: Deno.env.get("DENO_DIR")! } : {}),
      MEMA_DB_PATH: `${clone}/data/mema.sqlite3`,
      MEMA_CONFIG: `${clone}/data/config.json`,
      MEMA_MODELS_DIR: `${clone}/data/models`,
    };
    const start = await run(["task", "start"], clone, env);
    assert.equal(start.code, 0, start.stderr);
    assert.deepEqual(stackPackages(clone), []);
    const tools = [...Deno.readDirSync(`${clone}/node_modules/.deno`)]
      .map((entry) => entry.name).filter((name) => TEST_TOOLS.test(name.replace("+", "/")));
    assert.deepEqual(tools, [], "test tools are installed by the test task, not by start");
    assert.doesNotMatch(start.stderr, /approve-scripts/);

    const setup = await run(["task", "setup", "--model", "static-wink-100d"], clone, env);
    assert.equal(setup.code, 0, setup.stdout + setup.stderr);
    assert.match(setup.stdout, /installing the model runtime/);
    assert.doesNotMatch(setup.stdout + setup.stderr, /approve-scripts/);
    assert.ok(stackPackages(clone).some((name) => name.startsWith("@huggingface+transformers")));
    const lockAfter = Deno.readTextFileSync(`${clone}/deno.lock`);
    assert.equal(lockAfter, Deno.readTextFileSync(`${ROOT}/deno.lock`), "deno.lock unchanged");
  } finally {
    Deno.removeSync(clone, { recursive: true });
  }
});
