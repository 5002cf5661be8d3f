/**
 * The compiled binary's native-library arrangement (src/models/native_libs.ts), simulated
 * under `deno run`: Deno 2.9's compiled runtime copies each addon alone into the temp dir,
 * so its private library (libonnxruntime, libvips) is not beside it. A child process loads
 * such lone copies, without and with the libraries prepared first.
 * @module
 */
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { dirname } from "node:path";
import process from "node:process";
import { modelStackFile } from "../../src/models/model_stack.ts";
import { modelRuntimeLibraries, prepareModelRuntime } from "../../src/models/native_libs.ts";
import { ROOT } from "../helpers/server.ts";

const CHILD = `
import process from "node:process";
import { prepareModelRuntime } from "${ROOT}/src/models/native_libs.ts";
const [cacheDir, prepare, ...addons] = Deno.args;
if (prepare === "yes") prepareModelRuntime({ cacheDir, force: true });
for (const addon of addons) {
  const module = { exports: {} };
  try {
    process.dlopen(module, addon);
    console.log("loaded", addon);
  } catch (error) {
    console.log("failed", addon, String(error).split("\\n")[0]);
  }
}
`;

/** Copies each addon alone to a flat name in `dir`, as denort 2.9 does. */
function loneAddonCopies(dir: string): string[] {
  const require = createRequire(modelStackFile("transformers"));
  const ortIndex = require.resolve("onnxruntime-node");
  const ortBin = `${dirname(ortIndex)}/../bin/napi-v6/${process.platform}/${process.arch}`;
  const sharpPackage = createRequire(require.resolve("sharp"))
    .resolve(`@img/sharp-${process.platform}-${process.arch}/package`);
  const sharpLib = `${dirname(sharpPackage)}/lib`;
  return [ortBin, sharpLib].map((addonDir, index) => {
    const addon = [...Deno.readDirSync(addonDir)].find((entry) => entry.name.endsWith(".node"));
    assert.ok(addon, `no addon in ${addonDir}`);
    const copy = `${dir}/deno_rt_${index}.node`;
    Deno.copyFileSync(`${addonDir}/${addon.name}`, copy);
    return copy;
  });
}

async function runChild(args: string[]): Promise<string> {
  const result = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-all", "--config", `${ROOT}/deno.json`, "-", ...args],
    cwd: ROOT,
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const writer = result.stdin.getWriter();
  await writer.write(new TextEncoder().encode(CHILD));
  await writer.close();
  const output = await result.output();
  return new TextDecoder().decode(output.stdout) + new TextDecoder().decode(output.stderr);
}

Deno.test("the runtime's libraries are found in the package tree", () => {
  const libraries = modelRuntimeLibraries();
  assert.ok(libraries.some((path) => /libonnxruntime/.test(path)), String(libraries));
  assert.ok(libraries.some((path) => /libvips-cpp/.test(path)), String(libraries));
});

Deno.test("under deno run nothing is copied or loaded", () => {
  assert.deepEqual(prepareModelRuntime({ cacheDir: "/nonexistent" }), []);
});

Deno.test("lone addon copies load only after the libraries are prepared", async () => {
  const dir = Deno.makeTempDirSync({ prefix: "mema-native-" });
  try {
    const addons = loneAddonCopies(dir);
    const without = await runChild([`${dir}/cache`, "no", ...addons]);
    assert.match(without, /failed .*cannot open shared object file/);
    const withPrepared = await runChild([`${dir}/cache`, "yes", ...addons]);
    assert.equal(withPrepared.match(/^loaded /gm)?.length, addons.length, withPrepared);
    const copies = [...Deno.readDirSync(`${dir}/cache/native`)].map((entry) => entry.name);
    assert.ok(copies.every((name) => /-[0-9a-f]{16}$/.test(name)), String(copies));
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});
