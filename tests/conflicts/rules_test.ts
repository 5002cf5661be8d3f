/**
 * Pins the conflict rule stage: its precision and recall on the labelled corpus (at or above
 * the measured figures rounded down to 0.05; `deno run -A bench/conflict_rules.ts` prints the
 * current ones) and one example per signal and per reason to drop.
 */
import assert from "node:assert/strict";
import { assessPair, type EvidenceSide } from "../../src/conflicts/rules.ts";
import { readSentence, stem } from "../../src/conflicts/sentence.ts";
import { loadCorpus, loadLegacyCorpus, loadProbeCorpus, scoreCorpus } from "./corpus.ts";

function pair(a: string, b: string, subject = "notes"): ReturnType<typeof assessPair> {
  return assessPair({ subject, text: a }, { subject, text: b });
}

Deno.test("corpus: 300+ labelled pairs over ten domains and two languages, split in halves", async () => {
  const corpus = await loadCorpus();
  assert.ok(corpus.length >= 300, `${corpus.length} pairs`);
  assert.equal(new Set(corpus.map((p) => p.id)).size, corpus.length);
  assert.deepEqual([...new Set(corpus.map((p) => p.label))].sort(), ["conflict", "no_conflict"]);
  assert.ok(new Set(corpus.map((p) => p.domain)).size >= 10);
  assert.deepEqual([...new Set(corpus.map((p) => p.lang))].sort(), ["en", "zh"]);
  const reworded = corpus.filter((p) => p.frame === "reworded").length;
  assert.ok(reworded * 2 >= corpus.length, `${reworded} reworded`);
  const held = corpus.filter((p) => p.half === "held").length;
  assert.ok(held > corpus.length * 0.4 && held < corpus.length * 0.6, `${held} held`);
  for (const p of corpus) assert.ok(p.a.text && p.b.text && p.note, p.id);
});

Deno.test("corpus: precision and recall on the held half stay above the floor", async () => {
  const corpus = await loadCorpus();
  const held = scoreCorpus(corpus.filter((p) => p.half === "held"), assessPair).overall;
  // Measured (bench/conflict_rules.ts): precision 0.932, recall 0.882 (0.954 / 0.873 on the first
  // 311 pairs; the 60 added in wave 3 are reversals, schedule windows and events).
  assert.ok(held.precision >= 0.9, `held precision ${held.precision}`);
  assert.ok(held.recall >= 0.85, `held recall ${held.recall}`);
  // The probe set (tuned-on, written to find general gaps; 723 pairs): precision 0.977, recall
  // 0.933.
  const probe = scoreCorpus(await loadProbeCorpus(), assessPair).overall;
  assert.ok(probe.precision >= 0.95, `probe precision ${probe.precision}`);
  assert.ok(probe.recall >= 0.9, `probe recall ${probe.recall}`);
  const legacy = scoreCorpus(await loadLegacyCorpus(), assessPair).overall;
  // The earlier corpus (tuned-on): precision 0.973, recall 0.986.
  assert.ok(legacy.precision >= 0.9, `legacy precision ${legacy.precision}`);
  assert.ok(legacy.recall >= 0.9, `legacy recall ${legacy.recall}`);
});

Deno.test("corpus: the decision does not depend on which row comes first", async () => {
  for (
    const p of [...await loadCorpus(), ...await loadLegacyCorpus(), ...await loadProbeCorpus()]
  ) {
    assert.equal(assessPair(p.a, p.b).candidate, assessPair(p.b, p.a).candidate, p.id);
  }
});

Deno.test("number: unit-normalized amounts that differ are a candidate", () => {
  const result = pair("The cache TTL is 5 minutes.", "The cache TTL is 900 seconds.");
  assert.equal(result.candidate, true);
  assert.equal(result.kind, "number");
  assert.deepEqual(result.values, { a: "5 minutes", b: "900 seconds" });
});

Deno.test("number: equal amounts in other units are a restatement", () => {
  for (
    const [a, b] of [
      ["Retention is 3 days.", "Retention is 72 hours."],
      ["The upload limit is 1 GB.", "The upload limit is 1024 MB."],
      ["The fee is $20.", "The fee is 20 dollars."],
      ["Coverage must be 80%.", "Coverage must be 80 percent."],
    ]
  ) {
    const result = pair(a, b);
    assert.equal(result.candidate, false, `${a} / ${b}: ${result.reasons}`);
  }
});

Deno.test("number: versions compare by component", () => {
  const bumped = pair("The app pins React v18.2.", "The app pins React v18.3.");
  assert.equal(bumped.candidate, true);
  assert.equal(bumped.kind, "number");
  assert.equal(pair("The app pins React v18.2.", "The app pins React 18.2.0.").candidate, false);
});

Deno.test("number: money and percentages", () => {
  assert.equal(
    pair("The Pro plan costs $20 a month.", "The Pro plan costs $25 a month.").kind,
    "number",
  );
  assert.equal(pair("CI requires 80% coverage.", "CI requires 90% coverage.").kind, "number");
});

Deno.test("date: different days, weekdays and times for the same event", () => {
  const moved = pair("The Atlas deadline is March 14.", "The Atlas deadline moved to March 17.");
  assert.equal(moved.candidate, true);
  assert.equal(moved.kind, "date");
  assert.equal(pair("We deploy every Tuesday.", "We deploy every Thursday.").kind, "date");
  assert.equal(pair("Standup is at 9:30am.", "Standup moved to 10am.").kind, "date");
  assert.equal(
    pair("The Atlas deadline is 2024-03-14.", "The Atlas deadline is March 14.").candidate,
    false,
  );
});

Deno.test("date: simple Chinese dates, prices and weekdays", () => {
  assert.equal(pair("项目截止日期是3月5日。", "项目截止日期改为3月12日。").kind, "date");
  assert.equal(pair("周会在周一上午10点。", "周会改到周三上午10点。").kind, "date");
  assert.equal(pair("订阅价格是每月30元。", "订阅价格改为每月45元。").kind, "number");
  assert.equal(pair("保留三天。", "保留72小时。").candidate, false);
});

Deno.test("negation: a flipped polarity on the same words", () => {
  for (
    const [a, b] of [
      ["The service uses Redis for caching.", "The service no longer uses Redis for caching."],
      ["We deploy on Fridays.", "We don't deploy on Fridays."],
      ["Alex eats meat.", "Alex stopped eating meat."],
      ["服务使用Redis缓存。", "服务不再使用Redis缓存。"],
    ]
  ) {
    const result = pair(a, b);
    assert.equal(result.kind, "negation", `${a} / ${b}: ${result.reasons}`);
  }
  assert.equal(
    pair("We never deploy on Fridays.", "We do not deploy on Fridays.").candidate,
    false,
  );
});

Deno.test("negation: a negated different value is consistent", () => {
  assert.equal(pair("We don't deploy on Fridays.", "We deploy on Mondays.").candidate, false);
  assert.equal(pair("We don't use Jenkins.", "We use GitHub Actions.").candidate, false);
});

Deno.test("value: a different value for the same attribute", () => {
  const owner = pair(
    "The owner of the billing service is Ada.",
    "The owner of the billing service is Bob.",
  );
  assert.equal(owner.kind, "value");
  // The values are quoted as the rows write them.
  assert.deepEqual(owner.values, { a: "Ada", b: "Bob" });
  assert.equal(pair("Maria lives in Paris.", "Maria moved to Berlin.", "Maria").candidate, true);
  // Opposite states read as one state with a flipped polarity (rule stage v2).
  assert.equal(
    pair("The checkout flag is enabled.", "The checkout flag is disabled.").kind,
    "negation",
  );
});

Deno.test("v2: a change of state named in other words than the old fact is a candidate", () => {
  for (
    const [a, b] of [
      ["Staging uses MySQL 8.", "Staging was migrated off MySQL and now uses PostgreSQL 16."],
      ["Alice works at Acme.", "Alice left Acme and joined Globex."],
      ["Tickets are triaged by the support team.", "The SRE team took over ticket triage."],
      ["The quarterly report is owned by Fatima.", "Fatima handed the quarterly report to Jon."],
      ["The default branch is master.", "The default branch was renamed to main."],
      ["Theo reports to Ingrid.", "Theo's manager is Pablo."],
      ["The monitor is priced at $299.", "The monitor sells for $349."],
      ["The essay must be submitted by June 30.", "The essay deadline is July 7."],
      ["Each user can create 3 boards.", "Users can now create up to 10 boards."],
      ["We deploy with Capistrano.", "Deploys are done with Kamal these days."],
      ["The dataset is released under CC BY-SA.", "The dataset's license is now CC BY-NC."],
      ["Interns may not deploy to production.", "Interns are allowed to deploy to production now."],
      ["Files over 5 MB are blocked.", "Files up to 25 MB are allowed."],
      ["Ines reads the news on her phone.", "Ines gave up reading the news."],
      ["The game is free to play.", "The game costs $20 now."],
      ["他住在广州。", "他已经搬去深圳住了。"],
      ["The cache TTL is 10 minutes.", "The cache TTL is 90 seconds instead of 10 minutes."],
      [
        "Uploads are scanned by ClamAV.",
        "ClamAV was retired; uploads are scanned by a hosted service.",
      ],
      ["We track bugs in Jira.", "We no longer use Jira."],
      ["系统用的是 Oracle 数据库。", "系统已经从 Oracle 迁移到 PostgreSQL。"],
      ["会员费每月30元。", "会员费从下个月起涨到每月45元。"],
    ]
  ) {
    const result = pair(a, b);
    assert.equal(result.candidate, true, `${a} / ${b}: ${result.reasons.join("; ")}`);
    assert.equal(pair(b, a).candidate, true, `${b} / ${a}`);
  }
});

Deno.test("v2: opposite states are a flipped polarity", () => {
  for (
    const [a, b] of [
      ["Ivan loves spicy food.", "Ivan hates spicy food."],
      ["The blue hoodie is in stock.", "The blue hoodie is out of stock."],
      ["Sven works full-time.", "Sven works part-time."],
      ["他喜欢吃甜食。", "他讨厌吃甜食。"],
      ["The repository is public.", "The repository is private."],
      ["Dark launch is enabled in production.", "Dark launch is disabled in production."],
      ["Badges are optional for visitors.", "Badges are mandatory for visitors."],
      ["Dogs are allowed on the patio.", "Dogs are banned on the patio."],
      ["这个接口允许匿名访问。", "这个接口禁止匿名访问。"],
    ]
  ) {
    const result = pair(a, b);
    assert.equal(result.candidate, true, `${a} / ${b}: ${result.reasons.join("; ")}`);
    assert.equal(result.kind, "negation", `${a} / ${b}`);
  }
});

Deno.test("v2: scope, additions, shared identifiers and episodes are not contradictions", () => {
  for (
    const [a, b] of [
      ["Uploads are limited to 50 MB.", "The 50 MB upload limit applies per file."],
      ["A ticket costs €12.", "An extra €3 is charged for reserved seats."],
      ["Alice can be reached at alice@acme.com.", "Alice's email address is alice@acme.com."],
      ["Customer support is available 24/7.", "Customer support answers by chat and email."],
      ["Julia reviews all database migrations.", "Julia reviews all API changes."],
      ["The build cache is stored in S3.", "The build logs are stored in S3."],
      ["We moved into the new office in 2020.", "The new office has a rooftop terrace."],
      ["I ran 5 km this morning.", "Last weekend I ran 10 km with my club."],
      ["The data center was in Virginia until 2021.", "The data center is in Oregon."],
      ["Shipping costs $5 per order.", "Express shipping costs $15 per order."],
      ["The monitor is priced at $299.", "The monitor stand is priced at $49."],
      ["The hackathon is on May 9.", "Registration for the hackathon closes on May 2."],
      ["I made a vase in pottery class.", "I signed up for a pottery class."],
      ["The charting library is MIT licensed.", "The charting library's icons are CC BY licensed."],
      ["The store is open until 9pm.", "On Sundays the store is open until 6pm."],
      ["Files over 5 MB are blocked.", "Executable files are blocked regardless of size."],
      ["上传文件不超过 10 MB。", "10 MB 的限制按单个文件计算。"],
    ]
  ) {
    const result = pair(a, b);
    assert.equal(result.candidate, false, `${a} / ${b}: ${result.reasons.join("; ")}`);
  }
});

Deno.test("update_phrase: a replacement named on one side", () => {
  const result = pair("The monorepo uses npm.", "The monorepo now uses pnpm instead of npm.");
  assert.equal(result.kind, "update_phrase");
  assert.ok(result.reasons.some((r) => r.includes("instead of")));
  const switched = pair("We use Jenkins for CI.", "We switched to GitHub Actions for CI.");
  assert.equal(switched.candidate, true);
});

Deno.test("documents: an example and a row that points at its value name no value", () => {
  // Two packages' docs explain the same notation with their own numbers.
  const example = pair(
    "For example, `4-6, 8+` means ONNX Runtime Web currently support opset version 4 to 6.",
    "For example, `7-12, 13+` means ONNX Runtime Web currently supports opset version 7 to 12.",
  );
  assert.equal(example.candidate, false);
  assert.match(example.reasons.join(" "), /an example illustrates/);
  const pointed = pair(
    "The operator table is generated from the def files via generate-webgl-operator-md.ts.",
    "The operator table is generated from the def files via this script.",
  );
  assert.equal(pointed.candidate, false);
  assert.match(pointed.reasons.join(" "), /points at its value/);
  // Named on both sides, the values still conflict.
  const named = pair(
    "The operator table is generated from the def files via generate-webgl-operator-md.ts.",
    "The operator table is generated from the def files via build-tables.ts.",
  );
  assert.equal(named.candidate, true);
});

Deno.test("drops complementary facts about different subjects or attributes", () => {
  const cases: [EvidenceSide, EvidenceSide][] = [
    [{ subject: "Alice", text: "Alice's birthday is March 3." }, {
      subject: "Bob",
      text: "Bob's birthday is July 9.",
    }],
    [{ subject: "Alice", text: "Alice likes tea." }, { subject: "Bob", text: "Bob likes coffee." }],
    [{ text: "The billing timeout is 30 seconds." }, { text: "The search timeout is 45 seconds." }],
    [{ text: "The frontend uses React." }, { text: "The backend uses Go." }],
  ];
  for (const [a, b] of cases) {
    const result = assessPair(a, b);
    assert.equal(result.candidate, false, `${a.text} / ${b.text}: ${result.kind}`);
  }
});

Deno.test("drops a historical statement next to the current one", () => {
  const dated = pair("We used Jenkins for CI in 2019.", "We use GitHub Actions for CI.");
  assert.equal(dated.candidate, false);
  assert.ok(dated.reasons.at(-1)!.includes("historical"));
  assert.equal(pair("Maria used to live in Paris.", "Maria lives in Berlin.").candidate, false);
  // Both rows dated to the same past: compared as usual.
  assert.equal(
    pair("In 2019 the team had 4 people.", "In 2019 the team had 6 people.").candidate,
    true,
  );
});

Deno.test("an event time decides whether a year is the past", () => {
  const a = { text: "The office opened in 2019 at 12 Baker Street.", eventTime: "2024-05-01" };
  const b = { text: "The office is at 221 King Road." };
  assert.equal(assessPair(a, b).candidate, false);
});

Deno.test("drops additions and one-sided detail", () => {
  assert.equal(pair("The API supports JSON.", "The API also supports XML.").candidate, false);
  assert.equal(
    pair("Backups run nightly.", "Backups run nightly and are copied to S3.").candidate,
    false,
  );
  assert.equal(
    pair("Office hours are on Mondays.", "Office hours are on Mondays and Thursdays.").candidate,
    false,
  );
});

Deno.test("drops unrelated sentences that share a number", () => {
  const result = pair("The retry limit is 3.", "We run 3 staging environments.");
  assert.equal(result.candidate, false);
  assert.ok(result.reasons[0].includes("share too few words"));
  assert.equal(
    pair("The API timeout is 30 seconds.", "The build takes 12 minutes.").candidate,
    false,
  );
});

Deno.test("scores order candidates and explain every decision", () => {
  const strong = pair("The cache TTL is 5 minutes.", "The cache TTL is 15 minutes.");
  const weak = pair("The team tracks work in Jira.", "The team tracks work in Linear.");
  assert.ok(strong.score > weak.score, `${strong.score} vs ${weak.score}`);
  assert.ok(strong.score <= 1 && weak.score >= 0);
  assert.ok(pair("", "").reasons.length > 0);
  assert.equal(pair("", "").candidate, false);
});

Deno.test("number: close percentages, counts and identifiers are still different values", () => {
  for (
    const [a, b] of [
      ["SLA is 99.9% monthly uptime.", "SLA is 99.5% monthly uptime."],
      ["The cluster runs 40 replicas.", "The cluster runs 41 replicas."],
      ["Ticket 1201 tracks the outage.", "Ticket 1202 tracks the outage."],
      ["The standup starts at 14:00.", "The standup starts at 14:15."],
      ["We target Node 1.10.", "We target Node 1.1."],
    ]
  ) {
    const result = pair(a, b, "ops");
    assert.equal(result.candidate, true, `${a} / ${b}: ${result.reasons}`);
    assert.ok(result.kind === "number" || result.kind === "date", result.kind);
  }
});

Deno.test("v2: polarity is read per clause", () => {
  // Two denials in one clause cancel out; one in each of two clauses is still a denial.
  assert.equal(readSentence("The room is not unavailable.").negated, false);
  assert.equal(
    readSentence("The font files are proprietary and cannot be redistributed.").negated,
    true,
  );
  assert.equal(readSentence("Backups no longer go to S3; they go to B2.").negated, true);
});

/** Asserts the rule stage's decision on each pair, with its reasons when it is wrong. */
function expectPairs(pairs: [string, string][], candidate: boolean): void {
  for (const [a, b] of pairs) {
    const result = pair(a, b);
    assert.equal(result.candidate, candidate, `${a} / ${b}: ${result.reasons.join("; ")}`);
  }
}

Deno.test("probe: amounts written in words, o'clock and ordinals are values", () => {
  expectPairs([
    ["The Pro plan costs $20 per month.", "The Pro plan is priced at twenty-five dollars a month."],
    [
      "The nightly backup job runs at 2am.",
      "Nightly backups have been moved to 4 o'clock in the morning.",
    ],
    ["The library closes at 10 pm.", "The library now closes at eleven in the evening."],
    [
      "The quarterly review happens on the first Monday of the month.",
      "The quarterly review happens on the second Monday of the month.",
    ],
    [
      "Invoices are due on the 1st of each month.",
      "Invoices are now due on the fifteenth of every month.",
    ],
  ], true);
  expectPairs([
    ["The workshop ticket is $50.", "Tickets for the workshop are priced at fifty dollars."],
    ["The trial period lasts 14 days.", "The trial period lasts two weeks."],
    ["The library closes at 10 pm.", "The library closes at ten in the evening."],
  ], false);
});

Deno.test("probe: weights and distances compare across units; rates only per the same period", () => {
  expectPairs([
    ["Max luggage weight is 20 kg.", "Max luggage weight is now 50 lb."],
    ["The race course is 10 km.", "The race course is 5 miles."],
    ["Parking costs $5 per hour.", "Parking now costs $8 an hour."],
  ], true);
  expectPairs([
    ["Max luggage weight is 23 kg.", "Max luggage weight is 50 lb."],
    ["The bridge limit for trucks is 3 tonnes.", "The bridge limit for trucks is 3000 kg."],
    ["Parking costs $5 per hour.", "Parking costs $30 for the whole day."],
  ], false);
});

Deno.test("probe: going back, split particle verbs and Chinese 变成 name a change", () => {
  expectPairs([
    ["The team prefers async standups.", "The team went back to daily video standups."],
    [
      "The product launch is scheduled for March 3.",
      "We pushed the launch back to the 17th of March.",
    ],
    ["她最喜欢的颜色是蓝色。", "她最喜欢的颜色变成了绿色。"],
    ["张伟是后端组的负责人。", "后端组现在由李娜负责。"],
    ["这家店周一休息。", "这家店现在周一也营业。"],
  ], true);
  expectPairs([["测试组由孙悦带领。", "孙悦是测试组的组长。"]], false);
});

Deno.test("probe: interchangeable attribute words and short forms meet", () => {
  expectPairs([
    ["Kevin's birthday is on July 4.", "Kevin was born on the 14th of July."],
    ["The current release is v2.3.1.", "The latest release is 2.4.0."],
    [
      "Our docs are published under CC BY 4.0.",
      "Documentation is now released under CC BY-SA 4.0.",
    ],
  ], true);
  expectPairs([
    ["The database backups run every night.", "Every night, the database is backed up."],
    ["Our docs are published under CC BY 4.0.", "The documentation is released under CC BY 4.0."],
  ], false);
});

Deno.test("probe: 'these days' opens a claim, and a permission may name its amount in words", () => {
  expectPairs([
    ["I prefer tea in the morning.", "These days I drink coffee in the morning instead of tea."],
    [
      "Remote work is allowed two days a week.",
      "Employees may now work remotely three days a week.",
    ],
  ], true);
});

Deno.test("probe: a noun made from a verb meets the verb (-ation, -tion, -ment, -al)", () => {
  expectPairs([
    ["Account deletion takes 30 days.", "Accounts are now deleted after 14 days."],
    ["Password expiration is set to 90 days.", "Passwords now expire after 60 days."],
    ["Our subscription renewal is on the 1st of June.", "The subscription renews on June 15."],
    ["Data retention is 30 days.", "We retain data for one year."],
    ["Deployment happens on Tuesdays.", "We deploy on Thursdays now."],
  ], true);
  expectPairs([["Deployment happens on Tuesdays.", "We deploy on Tuesdays."]], false);
  assert.equal(stem("migration"), stem("migrated"));
  assert.equal(stem("configuration"), stem("configure"));
  assert.notEqual(stem("vacation"), stem("vacancy"));
});

Deno.test("probe: 'kept in' is 'stored in', 'up to' names a maximum, megabytes are a size", () => {
  expectPairs([
    ["The configuration is stored in etcd.", "We now keep the config in Consul."],
    ["Max luggage weight is 20 kg.", "Checked bags may weigh up to 50 lb."],
  ], true);
  expectPairs([
    ["The maximum upload size is 25 MB.", "Uploads up to 25 megabytes are accepted."],
    ["Max luggage weight is 23 kg.", "Checked luggage may weigh up to 50 lb."],
  ], false);
});

Deno.test("probe: frequencies in other words, 'opens' against 'closed', 交给 and allergies", () => {
  expectPairs([
    ["The museum is closed on Mondays.", "The museum now opens on Mondays."],
    ["小王负责招聘。", "招聘工作已经交给小李了。"],
  ], true);
  expectPairs([
    [
      "The router admin password is changed monthly.",
      "The router admin password is rotated every month.",
    ],
    ["Alex is allergic to peanuts.", "Alex is allergic to shellfish."],
  ], false);
});

Deno.test("probe: rates per period, a change that ends in the other's value, two occasions", () => {
  expectPairs([
    [
      "The API rate limit is 100 requests per minute.",
      "The API rate limit is 150 requests per minute.",
    ],
    ["The search index is rebuilt twice a day.", "The search index is now rebuilt 3 times a day."],
  ], true);
  expectPairs([
    [
      "The API rate limit is 100 requests per minute.",
      "The API rate limit is 6,000 requests per hour.",
    ],
    ["Our deployment runs on Kubernetes.", "We deploy to Kubernetes twice a day."],
    ["We upgraded to PostgreSQL 16 in March.", "PostgreSQL 16 is our main database."],
    ["Melanie painted a sunset last week.", "Melanie painted a lake scene yesterday."],
    ["The app supports English and Spanish.", "The app now supports French as well."],
    ["The repo is hosted on GitHub.", "The repository lives on GitHub."],
    ["会议室可以容纳十个人。", "会议室有一台投影仪。"],
  ], false);
});

Deno.test("negation: 'without' denies only what follows it, so an added 'without …' is detail", () => {
  expectPairs([
    [
      "Undici provides an `install()` function to add all WHATWG fetch classes to `globalThis`, making them available globally without requiring imports.",
      "Undici provides an `install()` function to add all WHATWG fetch classes to `globalThis`, making them available globally:",
    ],
    [
      "The report is exported every night without a manual step.",
      "The report is exported every night.",
    ],
  ], false);
  // What "without" denies is named by the other row: still a contradiction.
  expectPairs([
    [
      "The staging cluster runs without a load balancer.",
      "The staging cluster runs behind a load balancer.",
    ],
  ], true);
});

Deno.test("documents: a start dated as the other row dates it is one history, not a change", () => {
  expectPairs([
    [
      "Node.js has shipped a built-in `fetch()` implementation powered by undici since Node.js v18.",
      "Node.js includes a built-in `fetch()` implementation powered by undici starting from Node.js v18.",
    ],
  ], false);
  expectPairs([["The gym opens at 7am.", "Starting from March 1, the gym opens at 6am."]], true);
});

Deno.test("documents: an option's description without its subject is not a claim", () => {
  expectPairs([
    ["Pipelining is disabled by default.", "Defaults to 300 seconds."],
    ["Defaults to 30 seconds.", "Defaults to 10 seconds."],
    ["Returns a promise that resolves to the body.", "Returns the body as a string."],
  ], false);
  expectPairs([
    ["The request timeout defaults to 30 seconds.", "The request timeout defaults to 10 seconds."],
  ], true);
});

Deno.test("documents: HTML comments and lines of links are not claims", () => {
  expectPairs([
    ["<!-- YAML\nadded: v0.3.7\n-->", "<!-- YAML\nadded: v0.9.4\n-->"],
    [
      "[Submitting a Bug Report](./doc/contributing/issues.md#submitting-a-bug-report)",
      "[Triaging a bug report](#triaging-a-bug-report)",
    ],
    [
      "- [Install guide](./install.md), [Upgrade guide](./upgrade.md)",
      "- [Release guide](./release.md)",
    ],
  ], false);
  // A sentence with a link in it is still a sentence.
  expectPairs([
    [
      "The [staging database](./db.md) runs PostgreSQL 14.",
      "The staging database runs PostgreSQL 16.",
    ],
  ], true);
});

Deno.test("probe: 'now' on one side with an amount of the same kind, reworded around a shared word", () => {
  expectPairs([
    ["The trial period lasts 14 days.", "New users now get a 30-day trial."],
    ["The free tier stores 5 GB.", "Free accounts now get 10 GB of storage."],
    [
      "The support line answers within 4 hours.",
      "Support tickets are now answered within 2 hours.",
    ],
  ], true);
  // Each row opens with its own subject: two things, each with its amount.
  expectPairs([
    ["The gym opens at 6am.", "The pool now opens at 8am."],
    ["Our London office has 40 desks.", "The Berlin office now has 25 desks."],
    ["A day pass costs $15.", "Towels now cost $2 at the front desk."],
  ], false);
});

Deno.test("v2: in Chinese, the start and the end of a period are two dates", () => {
  expectPairs([
    ["合同于2024年1月1日生效。", "合同的到期日是2026年12月31日。"],
    ["租约从3月1日开始。", "租约将于8月31日到期。"],
  ], false);
  expectPairs([["报名截止日期是5月20日。", "报名在5月25日截止。"]], true);
});

Deno.test("probe: an open licence named by its identifier against 'proprietary'", () => {
  expectPairs([
    [
      "Our font files are licensed CC BY 4.0.",
      "The font files are proprietary and cannot be redistributed.",
    ],
    ["The plugin ships under the GPL-3.0 license.", "The plugin is closed source."],
  ], true);
  expectPairs([
    ["The docs are licensed CC BY 4.0.", "The company logo is proprietary."],
    ["The parser is BSD-3-Clause licensed.", "The parser is open source and free to fork."],
  ], false);
});

Deno.test("probe: two predicates of one subject, each a verb with its own preposition, both hold", () => {
  expectPairs([
    ["The payments service is written in Kotlin.", "The payments service is owned by Kofi."],
    ["The search service is written in Rust.", "The search service is deployed on Fly.io."],
  ], false);
  expectPairs([
    ["The search service is written in Rust.", "The search service is implemented in Go."],
    ["The marketing site is hosted on Netlify.", "The marketing site is deployed to Vercel."],
  ], true);
});

Deno.test("probe: a place after the same preposition may be a longer noun phrase", () => {
  expectPairs([
    ["The spare keys are in the top drawer.", "The spare keys are in the blue box on the shelf."],
    [
      "Team offsites are held at the lake house.",
      "Team offsites are held at the old mill downtown.",
    ],
  ], true);
  expectPairs([
    [
      "Lunch is served in the cafeteria on weekdays.",
      "Lunch is served in the garden during summer weekends.",
    ],
    ["The printer is in the office.", "The printer is in the office on the second floor."],
  ], false);
});

Deno.test("probe: times scoped to two different days are two schedules", () => {
  expectPairs(
    [["The store closes at 9pm on Saturdays.", "The store closes at 6pm on Sundays."]],
    false,
  );
  expectPairs([
    ["The webinar is scheduled for Tuesday at 10am.", "The webinar moved to Thursday at 10am."],
    ["The store closes at 9pm on Saturdays.", "On Saturdays the store now shuts at 7pm."],
  ], true);
});

Deno.test("probe: dislikes are a list; one amount with the opposite rule on each side holds", () => {
  expectPairs([
    ["Sam dislikes spicy food.", "Sam dislikes sweet drinks."],
    ["Expenses over $500 need approval.", "Expenses under $500 need no approval."],
  ], false);
  expectPairs([
    ["Sam dislikes spicy food.", "Sam now loves spicy food."],
    ["Files over 5 MB are blocked.", "Files up to 25 MB are allowed."],
  ], true);
});

Deno.test("probe: a permission with an irregular participle ('may be left unlocked') is a claim", () => {
  expectPairs([
    ["Laptops must be locked when unattended.", "Laptops may be left unlocked in the office."],
  ], true);
});

Deno.test("probe: a bound before 'can' is a limit; each row's own scope ('in production' / 'for notebooks')", () => {
  expectPairs([
    ["The queue holds at most 1,000 jobs.", "Up to 5,000 jobs can wait in the queue now."],
    ["We use Python 3.10 in production.", "Production now runs Python 3.12."],
  ], true);
  expectPairs([
    ["We use Python 3.10 in production.", "The data team uses Python 3.12 for notebooks."],
  ], false);
});

Deno.test("chat: the speaker and someone close to them are two people", () => {
  expectPairs([["Sam: I run 5 km every morning.", "Sam: My wife runs 10 km on weekends."]], false);
  expectPairs([["I run 5 km every morning.", "I now run 10 km every morning."]], true);
});

Deno.test("documents: a plural noun that looks like an option's verb keeps its subject", () => {
  expectPairs([
    ["Returns are accepted within 30 days.", "Returns are accepted within 14 days."],
  ], true);
});

Deno.test("probe: a floor and a ceiling both hold unless the floor lies above the ceiling", () => {
  expectPairs([
    ["The minimum password length is 8.", "The maximum password length is 64."],
    ["Minimum order is $20.", "Maximum order is $500."],
  ], false);
  expectPairs([["The job retries at least 5 times.", "The job retries at most 3 times."]], true);
});

Deno.test("probe: an amount inside the other row's range agrees; a named change replaces the range", () => {
  expectPairs([
    ["The service needs at least 2 GB of RAM.", "We run the service with 4 GB of RAM."],
    ["Delivery takes 3 to 5 days.", "Delivery usually takes 4 days."],
  ], false);
  expectPairs([
    ["Delivery takes 3 to 5 days.", "Delivery now takes 7 days."],
    ["The service needs at least 2 GB of RAM.", "The service needs at least 8 GB of RAM."],
  ], true);
});

Deno.test("probe: amounts of kinds the other row never has are two attributes", () => {
  expectPairs(
    [["The free tier allows 3 projects.", "The free tier allows 1 GB of storage."]],
    false,
  );
  expectPairs([["The free tier allows 3 projects.", "The free tier allows 10 projects."]], true);
});

Deno.test("probe: weekdays and weekends are two schedules; a weekday glued to a part of the day is the slot", () => {
  expectPairs([
    ["The gym is open 6:00 to 22:00 on weekdays.", "The gym is open 8:00 to 20:00 on weekends."],
    ["The store closes at 9pm on Saturdays.", "The store closes at 6pm on Sundays."],
  ], false);
  expectPairs([
    ["The gym is open 6:00 to 22:00 on weekdays.", "On weekdays the gym now opens 8:00 to 20:00."],
    ["Maintenance runs on Sunday nights.", "Maintenance runs on Wednesday mornings."],
  ], true);
});

Deno.test("probe: a stage of life that is over is history; a plan is another occasion than an episode", () => {
  expectPairs([
    ["Sara lived in Madrid as a child.", "Sara lives in Lisbon."],
    ["Caroline: I went hiking last weekend.", "Caroline: I'm going hiking again next weekend."],
  ], false);
  expectPairs([["Sara lives in Madrid.", "Sara lives in Lisbon."]], true);
});

Deno.test("probe: 'a single VM' counts one; 'is single' is the marital state", () => {
  expectPairs([["We deploy with Docker.", "We deploy with Docker Compose on a single VM."]], false);
  expectPairs([["Dana is married.", "Dana is single now."]], true);
});

Deno.test("probe: a preference 'X over Y' reversed is a conflict, unless each holds in its own scope", () => {
  expectPairs([
    ["Tom prefers email over phone calls.", "Tom prefers phone calls over email now."],
    ["Ben prefers tea over coffee.", "Ben prefers coffee over tea these days."],
  ], true);
  expectPairs([
    ["Prefer tabs over spaces in Go code.", "Prefer spaces over tabs in Python code."],
  ], false);
});

Deno.test("probe: 'open until' names the closing time", () => {
  expectPairs([["The store is open until 21:00.", "The store now closes at 19:00."]], true);
  expectPairs([["The store is open until 21:00.", "The store closes at 9pm."]], false);
});

Deno.test("probe: a figure changed by its own verb ('shortened to', 'slashed to') is a new figure", () => {
  expectPairs([
    ["Sprint length is two weeks.", "Sprints were shortened to one week."],
    ["The monthly budget is $5,000.", "The monthly budget was slashed to $3,000."],
  ], true);
  expectPairs([
    ["Sprint length is two weeks.", "The sprint was shortened to two weeks."],
    ["The monthly budget is $5,000.", "The monthly budget was slashed to $5,000."],
  ], false);
});

Deno.test("probe: 'with …' after the subject names a variant with its own price", () => {
  expectPairs([["A coffee costs $3.", "A coffee with oat milk costs $3.50."]], false);
  expectPairs([["A coffee costs $3.", "A coffee now costs $3.50."]], true);
});

Deno.test("probe: rows opening with two releases and saying different things are about two releases", () => {
  expectPairs([
    ["v2.0.0 dropped support for Node 14.", "v1.5.0 added support for Node 16."],
    ["Version 1 used XML for configuration.", "Version 2 uses YAML for configuration."],
  ], false);
  expectPairs([["Version 2 is the latest release.", "Version 3 is the latest release."]], true);
});

Deno.test("probe: an amount for each one and the total of all both hold", () => {
  expectPairs([
    [
      "Each worker handles 50 jobs per minute.",
      "The cluster handles 400 jobs per minute in total.",
    ],
  ], false);
  expectPairs([
    ["Each worker handles 50 jobs per minute.", "Each worker now handles 80 jobs per minute."],
  ], true);
});

Deno.test("probe: a name that ends one row and opens the other chains two people", () => {
  expectPairs([["Mark reports to Julia.", "Julia reports to the CTO."]], false);
  expectPairs([["Mark reports to Julia.", "Mark now reports to Omar."]], true);
});

Deno.test("probe: a denial and an affirmation of a longer object ('morning runs') are two objects", () => {
  expectPairs([["Emma hates mornings.", "Emma loves morning runs."]], false);
  expectPairs([["Emma hates mornings.", "Emma loves mornings now."]], true);
});

Deno.test("probe: one name denied and another affirmed in the same frame both hold", () => {
  expectPairs([["Olivia is no longer the team lead.", "Marco is the team lead."]], false);
  expectPairs([
    ["Olivia is the team lead.", "Olivia is no longer the team lead."],
    ["Guests are allowed in the office.", "Visitors are no longer permitted in the office."],
  ], true);
});

Deno.test("probe: a named change to the same attribute of another thing (parallel qualifier) is not a change of this one", () => {
  expectPairs([["The mailbox quota is 50 GB.", "The shared drive quota was cut to 20 GB."]], false);
  expectPairs([["The mailbox quota is 50 GB.", "The mailbox quota was cut to 20 GB."]], true);
});

Deno.test("probe: a reversed choice in Chinese ('用 X，不要用 Y' / '改用 Y，不再用 X')", () => {
  expectPairs([
    ["文档用 Markdown 写，不要用 Word。", "文档改用 Word 写，不再用 Markdown。"],
    ["请使用 pnpm，不要用 npm。", "请用 npm 安装依赖，不再使用 pnpm。"],
  ], true);
  expectPairs([
    ["文档用 Markdown 写，不要用 Word。", "文档一律用 Markdown 写。"],
    ["Use pnpm, not npm.", "Use pnpm; npm is no longer used."],
  ], false);
});

Deno.test("probe: days of a kind are a duration, compared only with days of the same kind", () => {
  expectPairs([
    ["Employees get 25 vacation days.", "Employees now get 30 days of vacation."],
    ["Refunds take 5 business days.", "Refunds now take 10 business days."],
  ], true);
  expectPairs([["Employees get 25 vacation days.", "Employees get 10 sick days."]], false);
});

Deno.test("probe: 'now' on one side and a name on each side, however the rest is worded", () => {
  expectPairs([["The license is MIT.", "The project is now licensed under GPL-3.0."]], true);
  expectPairs([
    ["The license is MIT.", "The project's logo is licensed under CC BY 4.0."],
    ["Our frontend team uses React.", "The backend team now writes Go services."],
  ], false);
});

Deno.test("probe: a state and its opposite named in other words share only the subject", () => {
  expectPairs([
    ["Kim works remotely.", "Kim now works from the office."],
    ["小王在家办公。", "小王现在去办公室上班了。"],
    ["The shared folder is writable by everyone.", "The shared folder is read-only for everyone."],
    ["Tom is a vegetarian.", "Tom eats meat again."],
    ["Sara is on parental leave.", "Sara is back at work now."],
    ["Ana is a contractor.", "Ana is now a permanent employee."],
    ["The cafeteria accepts cash.", "The cafeteria is cashless now."],
    ["The old reporting service is running.", "The old reporting service has been shut down."],
  ], true);
  expectPairs([
    ["Kim works remotely.", "Lee works from the office."],
    ["Pets are allowed in the office.", "Pets are allowed in the office since June."],
    ["Tom is a vegetarian.", "Tom cooks meat for his kids."],
  ], false);
});

Deno.test("probe: a state and its opposite in their own days or periods, as a plan, of someone else's, or in the past, both hold", () => {
  expectPairs([
    ["The library is open on Sundays.", "The library is closed on public holidays."],
    ["The API is read-only during the migration.", "The API accepts writes after the migration."],
    ["Kim works remotely on Fridays.", "Kim works from the office Monday to Thursday."],
    ["Kim will work from the office next month.", "Kim works remotely."],
    ["Sara is on parental leave.", "Sara's manager is back at work now."],
    ["Kim worked remotely during the lockdown.", "Kim works from the office."],
  ], false);
  expectPairs([
    ["The library is open on Sundays.", "The library is closed on Sundays now."],
    ["The API is read-only during the migration.", "The API accepts writes again."],
  ], true);
});

Deno.test("probe: two members of a closed set of values and a change on one side are a new value", () => {
  expectPairs([
    ["Mike commutes by car.", "Mike now takes the train to work."],
    ["The newsletter is sent weekly.", "The newsletter went monthly."],
    ["The build runs on Jenkins.", "Builds are now done with GitHub Actions."],
    ["Nina writes her notes by hand.", "Nina now types all her notes."],
    ["Priya prefers tea in the morning.", "Priya drinks coffee every morning now."],
  ], true);
  expectPairs([
    ["The build runs on Jenkins.", "The deploy now runs on GitHub Actions."],
    ["Lucia prefers window seats on long flights.", "Lucia books aisle seats on short flights."],
    ["Will the newsletter go monthly?", "The newsletter is sent weekly."],
    ["The monthly fee is $12.", "The yearly plan went to email invoices."],
    ["Mike commutes by car.", "Mike's wife now takes the train to work."],
    ["Mike used to commute by car.", "Mike now takes the train to work."],
  ], false);
});

Deno.test("probe: one activity in two windows of the day that never meet, worded in other forms", () => {
  expectPairs([
    [
      "Visiting hours are in the afternoon, from 14:00 until 17:00.",
      "Visitors are allowed only in the morning, 9:00 to 11:30.",
    ],
  ], true);
  expectPairs([
    [
      "The bakery delivers bread early in the morning, before 6:00.",
      "The bakery closes in the evening, after 20:00.",
    ],
    ["Maria reviews code in the morning.", "Maria closes the shop in the evening."],
    [
      "Visiting hours are in the afternoon on weekdays.",
      "Visitors are allowed in the morning on weekends.",
    ],
  ], false);
});

Deno.test("probe: a switch stated as 'is on' / 'switched off', and values on their own days", () => {
  expectPairs([
    ["The feature flag new-checkout is on.", "The new-checkout flag was switched off."],
  ], true);
  expectPairs([
    ["The meeting is on Monday.", "The meeting is on Monday at 10:00."],
    ["Meetings are held in person on Mondays.", "Meetings are held online the rest of the week."],
  ], false);
});

Deno.test("probe: a resource shared against one dedicated, and a channel named after the subject", () => {
  expectPairs([
    [
      "The staging cluster is shared with QA.",
      "The staging cluster is now dedicated to the mobile team.",
    ],
    ["The team prefers Slack for quick questions.", "Quick questions now go to Teams chat."],
  ], true);
  expectPairs([
    [
      "The staging cluster is shared with QA.",
      "The production cluster is dedicated to the mobile team.",
    ],
    ["The team prefers Slack for quick questions.", "Long reviews now go to email."],
  ], false);
});
