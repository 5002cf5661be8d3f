/**
 * A large JSONL library in mema's own export format, made from LoCoMo dialogue turns: each pass
 * over the data set renames the speakers (a new pair of names per conversation and pass), so
 * the library keeps LoCoMo's language without a million copies of the same text. Turns are
 * joined with the next ones until a memory holds ~250 characters (issue 38's corpus). Written
 * line by line: the generator never holds the file.
 *
 * @example
 * ```ts
 * import { writeMillionCorpus } from "./bench/helpers/million_corpus.ts";
 * const dir = Deno.makeTempDirSync();
 * await writeMillionCorpus(`${dir}/memories.jsonl`, { memories: 100 }); // { bytes, memories }
 * ```
 * @module
 */
import { type Conversation, loadLocomo, LOCOMO_DEV, sessionTurns } from "./locomo.ts";

/** Characters a memory is filled up to by joining consecutive turns. */
const TARGET_CHARS = 250;

const FIRST_NAMES = [
  "Ada",
  "Bruno",
  "Chiara",
  "Dmitri",
  "Esther",
  "Farid",
  "Greta",
  "Hugo",
  "Ines",
  "Jonas",
  "Kaito",
  "Lena",
  "Mateo",
  "Nadia",
  "Oskar",
  "Priya",
  "Quentin",
  "Rosa",
  "Samir",
  "Tova",
  "Ulrich",
  "Vera",
  "Wen",
  "Ximena",
  "Yusuf",
  "Zofia",
  "Anouk",
  "Bilal",
  "Carmen",
  "Dario",
  "Elif",
  "Felix",
  "Gloria",
  "Hamid",
  "Ilse",
  "Jorge",
  "Kirsi",
  "Luca",
  "Mirela",
  "Nils",
]; // deno-fmt-ignore
const LAST_NAMES = [
  "Abe", "Berg", "Costa", "Dahl", "Egger", "Fontaine", "Grau", "Haas", "Ivanova", "Jensen",
  "Kovac", "Lind", "Moreau", "Novak", "Okafor", "Petrov", "Quispe", "Rossi", "Sato", "Tanaka",
  "Ueda", "Varga", "Weiss", "Xu", "Yilmaz", "Zeller", "Amato", "Brandt", "Cruz", "Duval",
]; // deno-fmt-ignore

/** A distinct full name for the `index`-th speaker of a pass. */
function personName(index: number): string {
  const first = FIRST_NAMES[index % FIRST_NAMES.length];
  const last = LAST_NAMES[Math.floor(index / FIRST_NAMES.length) % LAST_NAMES.length];
  const generation = Math.floor(index / (FIRST_NAMES.length * LAST_NAMES.length));
  return generation === 0 ? `${first} ${last}` : `${first} ${last} ${generation + 1}`;
}

/** The memories of one conversation in one pass, speakers renamed. */
export function* passMemories(
  conversation: Conversation,
  pass: number,
  conversationIndex: number,
  conversations: number,
): Generator<{ subject: string; content: string; eventTime?: string }> {
  const turns = sessionTurns(conversation);
  const speakers = [...new Set(turns.map((turn) => turn.turn.speaker))];
  const base = (pass * conversations + conversationIndex) * 2;
  const renamed = new Map(speakers.map((name, index) => [name, personName(base + index)]));
  const rename = (text: string) => {
    let out = text;
    for (const [from, to] of renamed) out = out.replaceAll(from, to);
    return out;
  };
  for (let at = 0; at < turns.length;) {
    const first = turns[at];
    let content = rename(first.content);
    at++;
    while (content.length < TARGET_CHARS - 60 && at < turns.length) {
      content += `\n${rename(turns[at].content)}`;
      at++;
    }
    const names = [...renamed.values()].join(" and ");
    yield {
      subject: `${names}, session ${first.session}`,
      content,
      eventTime: first.time,
    };
  }
}

async function sha256Hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return Array.from(new Uint8Array(digest), (byte) => byte.toString(16).padStart(2, "0")).join("");
}

/**
 * Writes `memories` memories as an export file; returns its size. `skip` leaves out the corpus's
 * first memories (ids and times stay those of the whole corpus): the lines after a library made
 * from the corpus's start.
 */
export async function writeMillionCorpus(
  path: string,
  options: { memories: number; skip?: number; dataPath?: string },
): Promise<{ bytes: number; memories: number }> {
  const conversations = loadLocomo(options.dataPath ?? LOCOMO_DEV);
  const file = await Deno.open(path, { write: true, create: true, truncate: true });
  const encoder = new TextEncoder();
  const ingest = Date.UTC(2026, 0, 1);
  let pending: string[] = [];
  let bytes = 0;
  let written = 0;
  const flush = async () => {
    const chunk = encoder.encode(pending.join(""));
    for (let at = 0; at < chunk.length;) at += await file.write(chunk.subarray(at));
    bytes += chunk.length;
    pending = [];
  };
  pending.push(`${JSON.stringify({ type: "mema_export", format: 1 })}\n`);
  const skip = options.skip ?? 0;
  const end = skip + options.memories;
  try {
    for (let pass = 0; written < end; pass++) {
      for (const [index, conversation] of conversations.entries()) {
        for (const memory of passMemories(conversation, pass, index, conversations.length)) {
          if (written >= end) break;
          written++;
          if (written <= skip) continue;
          const workspace = `team-${pass % 4}`;
          const at = new Date(ingest + written * 1000).toISOString();
          // Every field `mema export --format jsonl` writes, so sizes match a real export.
          pending.push(`${
            JSON.stringify({
              type: "memory",
              id: written,
              subject: memory.subject,
              content: memory.content,
              content_sha: await sha256Hex(memory.content),
              tags: ["conversation", `pass-${pass % 16}`],
              workspace,
              workspace_canonical: workspace,
              source_type: "document_extracted",
              source_ref: null,
              event_time: memory.eventTime ?? null,
              ingest_time: at,
              confidence: 0.5,
              protection_level: "normal",
              status: "active",
              version: 1,
              agent_id: "bench-agent",
              client: "bench",
              metadata: {},
              follows: null,
              superseded_by: null,
              created_at: at,
              updated_at: at,
            })
          }\n`);
          if (pending.length >= 2_000) await flush();
        }
        if (written >= end) break;
      }
    }
    await flush();
  } finally {
    file.close();
  }
  return { bytes, memories: written - skip };
}

if (import.meta.main) {
  const [path, count] = Deno.args;
  console.log(await writeMillionCorpus(path, { memories: Number(count ?? 1_000_000) }));
}
