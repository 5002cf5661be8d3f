/**
 * The lists behind people's names where capitals cannot tell: given names that open a sentence,
 * and Chinese surnames before a verb a person does or a title.
 */
import assert from "node:assert/strict";
import { isGivenName, readHanPersons } from "../../src/entities/person_names.ts";

Deno.test("a given name is one capitalized word on the list; words that are also names are not", () => {
  for (const name of ["Alice", "Caroline", "Priya", "Hiroshi", "Mateo"]) {
    assert.equal(isGivenName(name), true, name);
  }
  for (const word of ["Deploys", "Yesterday", "Will", "May", "Max", "alice", "ALICE", "Alice's"]) {
    assert.equal(isGivenName(word), false, word);
  }
});

Deno.test("Chinese people: one or two characters after the surname, before a verb or a title", () => {
  const read = (text: string) => readHanPersons(text).map((p) => [p.words, p.start]);
  assert.deepEqual(read("张伟负责支付服务。"), [["张伟", 0]]);
  assert.deepEqual(read("后端组现在由李娜负责。"), [["李娜", 6]]);
  assert.deepEqual(read("请联系王经理。"), [["王经理", 3]]);
  assert.deepEqual(read("司马光决定了。"), [["司马光", 0]]);
  // Inside a word (每周), a numeral (周三), a word the list knows (任务), no verb after (李娜是).
  assert.deepEqual(read("每周部署，周三部署，任务完成，李娜是组长。"), []);
});
