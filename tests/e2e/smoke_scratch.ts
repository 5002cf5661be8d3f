import { makeTempHome, startServer } from "../helpers/server.ts";
const home = makeTempHome();
const t0 = performance.now();
const s = await startServer(home);
console.log("connect ms", performance.now() - t0);
console.log(
  JSON.stringify(
    await s.call("remember", {
      content: "Production deploys run on Tuesdays after 14:00 UTC.",
      subject: "deploy schedule",
      workspace: "Billing_Service",
      tags: ["Deploy", "ops"],
    }),
  ),
);
console.log(JSON.stringify(await s.call("find", { query: "when do deploys run" })));
console.log(
  JSON.stringify(
    await s.call("update", {
      memory_id: 1,
      old_text: "Tuesdays",
      new_text: "Wednesdays",
      expected_version: 1,
    }),
  ),
);
console.log(
  JSON.stringify(
    await s.call("read", { memory_id: 1, span: { start: 0, end: 10 }, include_history: true }),
  ),
);
console.log(JSON.stringify(await s.call("finde", {})));
console.log(JSON.stringify(await s.call("read", { memoryId: 1 })));
console.log(JSON.stringify(await s.call("status", {})));
console.log(JSON.stringify((await s.call("help", { topic: "update" })).data).slice(0, 600));
await s.close();
console.log(s.stderr());
home.cleanup();
