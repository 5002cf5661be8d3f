/**
 * The model manifest: the repository's file validates, and malformed manifests
 * fail with a `config_invalid` error that names the bad key.
 * @module
 */
import assert from "node:assert/strict";
import { MemaError } from "../../src/errors/mod.ts";
import {
  findModel,
  loadManifest,
  type Manifest,
  parseManifest,
} from "../../src/models/manifest.ts";

const REPO_MANIFEST = new URL("../../models.manifest.json", import.meta.url).pathname;

function validManifest(): Record<string, unknown> {
  return structuredClone(JSON.parse(Deno.readTextFileSync(REPO_MANIFEST)));
}

function failure(run: () => unknown): MemaError {
  try {
    run();
  } catch (error) {
    assert.ok(error instanceof MemaError, `expected a MemaError, got ${error}`);
    return error;
  }
  assert.fail("expected a failure");
}

Deno.test("the repository manifest validates, bundled and read from disk alike", () => {
  const bundled = loadManifest();
  assert.deepEqual(loadManifest(REPO_MANIFEST), bundled);
  assert.equal(bundled.schema_version, 1);
  const ids = bundled.models.map((model) => model.id);
  assert.deepEqual(ids, ["static-wink-100d", "multilingual-e5-small", "mdeberta-v3-base-xnli"]);
});

Deno.test("the repository manifest carries what the embedder and the judge need", () => {
  const manifest = loadManifest();
  const wink = findModel(manifest, "static-wink-100d");
  assert.equal(wink.builtin, true);
  assert.deepEqual(wink.files, []);
  assert.equal(wink.dim, 100);

  const e5 = findModel(manifest, "multilingual-e5-small");
  assert.equal(e5.dim, 384);
  assert.equal(e5.query_prefix, "query: ");
  assert.equal(e5.passage_prefix, "passage: ");
  assert.ok(e5.files.every((file) => file.sha256 !== null && file.size !== null));
  assert.ok(e5.files.some((file) => file.path === "onnx/model_quantized.onnx"));

  const judge = findModel(manifest, "mdeberta-v3-base-xnli");
  assert.equal(judge.task, "nli");
  assert.deepEqual(judge.labels?.map((label) => label.verdict), [
    "no_conflict",
    "possible_conflict",
    "conflict",
  ]);
  // Honesty check: a file without a recorded hash must never claim to be verified, and says
  // why it has none.
  for (const model of manifest.models) {
    for (const file of model.files) {
      if (file.sha256 === null) {
        assert.notEqual(file.verified, true, `${model.id}/${file.path}`);
        assert.ok(file.no_sha256_reason, `${model.id}/${file.path} says why it has no sha256`);
      }
    }
  }
});

Deno.test("a downloaded file without a sha256 must say why", () => {
  const manifest = validManifest() as { models: { files: Record<string, unknown>[] }[] };
  const file = manifest.models[1].files[0];
  file.sha256 = null;
  delete file.no_sha256_reason;
  const error = failure(() => parseManifest(manifest, "test"));
  assert.equal(error.code, "config_invalid");
  assert.match(error.reason, /no_sha256_reason/);
  file.no_sha256_reason = "the publisher lists none";
  assert.equal(parseManifest(manifest, "test").models[1].files[0].sha256, null);
});

Deno.test("an unknown key is named with its path and the closest real key", () => {
  const raw = validManifest() as { models: Record<string, unknown>[] };
  const file = (raw.models[1].files as Record<string, unknown>[])[0];
  file.sha265 = file.sha256;
  delete file.sha256;
  const error = failure(() => parseManifest(raw, "test.json"));
  assert.equal(error.code, "config_invalid");
  assert.ok(error.reason.includes("models[1].files[0]"), error.reason);
  assert.ok(error.reason.includes('model "multilingual-e5-small"'), error.reason);
  // Either the stray key or the missing one is reported first; both name the field.
  assert.ok(error.field?.startsWith("models[1].files[0].sha2"), error.field);
});

Deno.test("a bad value names the key", () => {
  const raw = validManifest() as { models: Record<string, unknown>[] };
  (raw.models[1].files as Record<string, unknown>[])[3].sha256 = "ABC";
  const error = failure(() => parseManifest(raw, "test.json"));
  assert.equal(error.field, "models[1].files[3].sha256");
  assert.match(error.reason, /64 lowercase hex digits/);
});

Deno.test("a misspelled model key gets a did-you-mean", () => {
  const raw = validManifest() as { models: Record<string, unknown>[] };
  raw.models[0].pooiling = "mean";
  const error = failure(() => parseManifest(raw, "test.json"));
  assert.equal(error.field, "models[0].pooiling");
  assert.equal(error.didYouMean, "pooling");
});

Deno.test("paths that escape the model directory are rejected", () => {
  for (const path of ["../evil.onnx", "/etc/passwd", "onnx//model.onnx", "a\\b"]) {
    const raw = validManifest() as { models: Record<string, unknown>[] };
    (raw.models[1].files as Record<string, unknown>[])[0].path = path;
    const error = failure(() => parseManifest(raw, "test.json"));
    assert.equal(error.field, "models[1].files[0].path", path);
  }
});

Deno.test("cross-field rules: an embedding model needs dim, ids are unique", () => {
  const noDim = validManifest() as { models: Record<string, unknown>[] };
  delete noDim.models[1].dim;
  assert.equal(failure(() => parseManifest(noDim, "t")).field, "models[1].dim");

  const duplicate = validManifest() as { models: Record<string, unknown>[] };
  duplicate.models[2].id = "multilingual-e5-small";
  const error = failure(() => parseManifest(duplicate, "t"));
  assert.equal(error.field, "models[2].id");
  assert.match(error.reason, /listed twice/);
});

Deno.test("a missing or non-JSON manifest file is a clear config error", () => {
  const dir = Deno.makeTempDirSync({ prefix: "mema-manifest-test-" });
  try {
    assert.match(failure(() => loadManifest(`${dir}/none.json`)).reason, /does not exist/);
    Deno.writeTextFileSync(`${dir}/bad.json`, "{ not json");
    assert.match(failure(() => loadManifest(`${dir}/bad.json`)).reason, /not valid JSON/);
    Deno.writeTextFileSync(`${dir}/v2.json`, JSON.stringify({ schema_version: 2, models: [] }));
    assert.equal(failure(() => loadManifest(`${dir}/v2.json`)).field, "schema_version");
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("findModel suggests the closest id", () => {
  const manifest: Manifest = loadManifest();
  const error = failure(() => findModel(manifest, "multilingual-e5-smal"));
  assert.equal(error.code, "not_found");
  assert.equal(error.didYouMean, "multilingual-e5-small");
  assert.match(error.hint ?? "", /static-wink-100d/);
});
