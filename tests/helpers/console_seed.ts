/**
 * A small library for console tests and screenshots, written the way an agent writes it:
 * through a real `mema serve` over MCP. Two contradicting facts (which write-time detection turns
 * into a conflict), an edited fact (two versions), and facts in a second workspace.
 * @module
 */
import { startServer, type TempHome } from "./server.ts";

/** Ids of what {@linkcode seedLibrary} stored. */
export interface SeededLibrary {
  deadlineFriday: number;
  deadlineMonday: number;
  office: number;
  pnpm: number;
  conflictId: number;
}

/** Stores the library and waits (≤ 10 s) until detection has opened the conflict. */
export async function seedLibrary(home: TempHome): Promise<SeededLibrary> {
  const server = await startServer(home, {
    env: { MEMA_CLIENT: "cursor", MEMA_AGENT_ID: "cursor-main" },
  });
  try {
    const remember = async (data: Record<string, unknown>) => {
      const response = await server.call("remember", data);
      if (!response.ok) throw new Error(JSON.stringify(response.data));
      return response.data.memory_id as number;
    };
    const deadlineFriday = await remember({
      content: "The v2 release deadline is Friday, March 14.",
      subject: "release deadline",
      workspace: "acme",
      tags: ["release"],
    });
    const deadlineMonday = await remember({
      content: "The v2 release deadline moved to Monday, March 17.",
      subject: "release deadline",
      workspace: "acme",
      tags: ["release"],
    });
    const office = await remember({
      content: "The office is at 12 Harbour Street, Leith. Visitors sign in at the front desk.",
      subject: "office address",
      workspace: "acme",
      tags: ["office"],
    });
    const edited = await server.call("update", {
      memory_id: office,
      old_text: "12 Harbour Street",
      new_text: "40 Quayside Road",
      reason: "the office moved",
    });
    if (!edited.ok) throw new Error(JSON.stringify(edited.data));
    const pnpm = await remember({
      content: "Use pnpm, not npm, in the web repository; the lockfile is pnpm-lock.yaml.",
      subject: "package manager",
      workspace: "web",
      tags: ["tooling"],
    });
    await remember({
      content: "Deploys to production happen on Tuesdays after the 10:00 stand-up.",
      subject: "deploy day",
      workspace: "acme",
      tags: ["release", "ops"],
    });
    for (let attempt = 0; attempt < 100; attempt++) {
      const list = await server.callRaw({ view: "conflicts", data: {} }, "memory_review");
      const found = list.data.conflicts?.[0]?.conflict_id as number | undefined;
      if (found !== undefined) {
        return { deadlineFriday, deadlineMonday, office, pnpm, conflictId: found };
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error("write-time detection opened no conflict");
  } finally {
    await server.close();
  }
}
