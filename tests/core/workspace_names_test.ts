import assert from "node:assert/strict";
import { canonicalWorkspace } from "../../src/core/workspace_names.ts";

Deno.test("spellings of one project fold to one canonical name", () => {
  for (
    const name of [
      "My-Project",
      "my_project",
      "MY PROJECT",
      " my--project ",
      "ＭＹ＿ＰＲＯＪＥＣＴ",
      "my.project",
    ]
  ) {
    assert.equal(canonicalWorkspace(name), "my-project", name);
  }
  assert.notEqual(canonicalWorkspace("re-sign"), canonicalWorkspace("resign"));
});

Deno.test("every way of saying no project is the default pool", () => {
  for (
    const name of [
      "",
      "  ",
      "Default",
      "DEFAULT",
      "global",
      "none",
      "null",
      "默认",
      "未知",
      "ｄｅｆａｕｌｔ",
      undefined,
      null,
    ]
  ) {
    assert.equal(canonicalWorkspace(name), "default", String(name));
  }
});
