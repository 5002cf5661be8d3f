/**
 * What extraction reads from a fact: code identifiers by shape, names by capitalization and
 * kind words, Chinese names by their kind word, people by their given name or surname, aliases
 * the text states, relations from plain wording; and what it leaves alone (a sentence's first
 * word, pronouns, a whole long text).
 */
import assert from "node:assert/strict";
import { extractMentions } from "../../src/entities/extract.ts";
import { readRelations } from "../../src/entities/relations.ts";
import { ENTITY_TEXT_MAX_CHARS } from "../../src/entities/constants.ts";

const words = (text: string) => extractMentions(text).mentions.map((m) => `${m.words}:${m.kind}`);
const relations = (text: string) =>
  readRelations(text, extractMentions(text).mentions).relations.map((r) =>
    `${r.from.words} ${r.type} ${r.to.words}`
  );

Deno.test("code identifiers are read by their shape, a version with what it versions", () => {
  assert.deepEqual(
    words("Install @acme/ui-kit@2.3.1, set API_TOKEN, see OPS-12 and https://x.example.com/a."),
    [
      "@acme/ui-kit:package",
      "@acme/ui-kit@2.3.1:version",
      "API_TOKEN:env",
      "OPS-12:ticket",
      "https://x.example.com/a:url",
    ],
  );
  assert.deepEqual(words("Logs go to /var/log/app.log and ops@example.org."), [
    "/var/log/app.log:path",
    "ops@example.org:email",
  ]);
  const pg = extractMentions("We run PostgreSQL 16 in production.").mentions;
  assert.deepEqual(pg.map((m) => [m.words, m.versionOf]), [
    ["PostgreSQL", undefined],
    ["PostgreSQL 16", "PostgreSQL"],
  ]);
});

Deno.test("names come from capitals and kind words; a sentence's first word does not", () => {
  assert.deepEqual(words("Deploys run on Fridays. The Payments API is slow."), [
    "Payments API:service",
  ]);
  assert.deepEqual(words("the billing service pages the Search team"), [
    "billing service:service",
    "Search team:team",
  ]);
  assert.deepEqual(words("Kubernetes (K8s) runs it."), ["Kubernetes:product", "K8s:product"]);
  assert.deepEqual(extractMentions("Kubernetes (K8s) runs it.").aliases, [["Kubernetes", "K8s"]]);
  assert.deepEqual(words("支付团队负责订单服务。"), ["支付团队:team", "订单服务:service"]);
});

Deno.test("a given name opening a sentence is a person; an ordinary opening word is not", () => {
  assert.deepEqual(words("Alice approved the budget."), ["Alice:person"]);
  assert.deepEqual(words("Yeah Mel, see you soon! Congrats Caroline."), [
    "Mel:person",
    "Caroline:person",
  ]);
  // Words that open sentences, and given names that are also such words ("Will", "May").
  assert.deepEqual(
    words("Deploys run on Fridays. Yesterday we shipped. Will it hold? May brought rain."),
    [],
  );
  assert.deepEqual(relations("Alice owns the billing service."), [
    "billing service owned_by Alice",
  ]);
});

Deno.test("a Chinese person is a surname and name before a verb a person does, or a title", () => {
  assert.deepEqual(words("张伟负责支付服务。"), ["张伟:person", "支付服务:service"]);
  assert.deepEqual(relations("张伟负责支付服务。"), ["支付服务 owned_by 张伟"]);
  assert.deepEqual(words("王经理批准了预算，欧阳娜娜提交了代码。"), [
    "王经理:person",
    "欧阳娜娜:person",
  ]);
  // Words that start with a surname's character: a weekday, "at once", "plan", "many people".
  assert.deepEqual(words("周一部署，马上修复。方案设计完成，许多人说好。"), []);
  assert.deepEqual(words("王先生"), ["王先生:person"], "a bare surname needs its title");
  assert.deepEqual(words("王说"), [], "a bare surname before a verb is too short to trust");
});

Deno.test("relations come from plain wording in English and Chinese, never from pronouns", () => {
  assert.deepEqual(relations("The Ledger service is owned by the Finance team."), [
    "Ledger service owned_by Finance team",
  ]);
  assert.deepEqual(relations("Priya Patel maintains the Android SDK."), [
    "Android SDK owned_by Priya Patel",
  ]);
  assert.deepEqual(relations("库存服务由仓储团队负责。订单服务依赖 Redis。"), [
    "库存服务 owned_by 仓储团队",
    "订单服务 depends_on Redis",
  ]);
  assert.deepEqual(relations("It uses Kafka. I depend on coffee."), []);
});

Deno.test("a long text is read only up to the limit", () => {
  const text = `${"word ".repeat(ENTITY_TEXT_MAX_CHARS / 5)}Late Entity lives here.`;
  assert.deepEqual(words(text), []);
});
