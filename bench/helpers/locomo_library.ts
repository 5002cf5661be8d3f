/**
 * A library of any size built from LoCoMo chat turns, for benchmarks that need more memories
 * than the data set holds: the conversations are replayed round after round, each round with
 * its speakers renamed (a different pair of names per round and conversation, chosen by a
 * seeded shuffle), so every memory is distinct text that reads like a real chat turn. The
 * questions are renamed the same way and serve as queries.
 *
 * Every memory satisfies the stricter peer limits too (`@ai-devkit/memory`: title 10–100
 * characters and unique, content ≥ 50 characters), so the same library goes into both.
 *
 * @example
 * ```ts
 * import { buildLocomoLibrary } from "./bench/helpers/locomo_library.ts";
 * const library = buildLocomoLibrary({ size: 1_000, extra: 200, seed: 7 });
 * library.memories[0]; // {subject, content, tags, eventTime}
 * library.queries[0]; // "When did Aurelia go to the LGBTQ support group?"
 * ```
 * @module
 */
import {
  type Conversation,
  loadLocomo,
  LOCOMO_DEV,
  scoredQuestions,
  sessionTurns,
} from "./locomo.ts";
import { seededRandom } from "../../tests/helpers/random.ts";

/** One memory of the library, in terms both servers take. */
export interface LibraryMemory {
  /** Title: "<speaker> to <listener>, <conversation>-r<round> <dia id>". */
  subject: string;
  /** "<speaker> to <listener> (session N, <date>): <text> [shared a photo: …]". */
  content: string;
  /** Lower-case words made of letters, digits and hyphens (the peer's tag rule). */
  tags: string[];
  eventTime?: string;
}

/** A built library. */
export interface LocomoLibrary {
  /** `size` memories to ingest, then `extra` more (the `remember` sample). */
  memories: LibraryMemory[];
  extra: LibraryMemory[];
  /** Questions of the conversation rounds the first `size` memories reach, renamed, shuffled. */
  queries: string[];
  /**
   * The scored questions of those rounds (unshuffled), renamed, with the subject endings of
   * their evidence turns (`", <conversation>-r<round> <dia id>"`): recall at library scale.
   */
  labelled: { question: string; category: string; evidence: string[] }[];
  /** Distinct words of the library (lower case, letters only), for many-term queries. */
  vocabulary: string[];
  /** Mean content length in characters. */
  contentCharsMean: number;
}

/** The peer's minimum content length; shorter turns get their place appended. */
const CONTENT_MIN_CHARS = 50;

/** The peer's query length limits (characters). */
const QUERY_MIN_CHARS = 3;
const QUERY_MAX_CHARS = 500;

/**
 * Names the speakers get, chosen to be rare as ordinary words (so renaming never changes
 * anything but names). 64 names give 4,032 ordered pairs: that many rounds per conversation.
 */
const NAMES = (
  "Aurelia Bastian Cosima Dorian Elodie Fabian Giselle Hollis Ingrid Jasper Katja Leopold " +
  "Marisol Nikolai Ottilie Percival Quintessa Rosalind Sebastian Thaddeus Ulrike Valentin " +
  "Wilhelmina Xavier Yolanda Zacharias Anneliese Benedikt Clementine Desmond Evangeline " +
  "Florian Genevieve Horatio Isadora Joaquin Kasimir Lavinia Maximilian Nerissa Octavian " +
  "Philippa Quentin Rafaela Severin Tabitha Ulysses Veronika Wendeline Ximena Yannick Zenobia " +
  "Anselm Beatrix Cornelius Delphine Emeric Felicitas Gideon Henrietta Ignatius Josefine " +
  "Konstantin Leonora"
).split(" ");

function shuffled<T>(items: readonly T[], random: () => number): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** Replaces whole-word occurrences of each key by its value. */
function renamer(names: Record<string, string>): (text: string) => string {
  const keys = Object.keys(names).sort((a, b) => b.length - a.length);
  const pattern = new RegExp(`\\b(${keys.map(escapeRegExp).join("|")})\\b`, "g");
  return (text) => text.replace(pattern, (name) => names[name]);
}

interface Prepared {
  conversation: Conversation;
  speakers: [string, string];
  turns: ReturnType<typeof sessionTurns>;
  dates: Map<number, string>;
  /** One shuffled list of name pairs per conversation; round r uses pair r. */
  pairs: [string, string][];
}

function prepare(conversations: Conversation[], random: () => number): Prepared[] {
  const allPairs: [string, string][] = NAMES.flatMap((a) =>
    NAMES.filter((b) => b !== a).map((b): [string, string] => [a, b])
  );
  return conversations.map((conversation) => {
    const c = conversation.conversation;
    const dates = new Map<number, string>();
    for (let session = 1; c[`session_${session}`] !== undefined; session++) {
      dates.set(session, String(c[`session_${session}_date_time`] ?? "").trim());
    }
    return {
      conversation,
      speakers: [String(c.speaker_a), String(c.speaker_b)],
      turns: sessionTurns(conversation),
      dates,
      pairs: shuffled(allPairs, random),
    };
  });
}

/**
 * Builds `size + extra` memories (rounds over the conversations in order) and the queries of
 * the rounds the first `size` memories reach. Deterministic for a seed.
 */
export function buildLocomoLibrary(options: {
  size: number;
  extra: number;
  seed: number;
  dataPath?: string;
}): LocomoLibrary {
  const random = seededRandom(options.seed);
  const prepared = prepare(loadLocomo(options.dataPath ?? LOCOMO_DEV), random);
  const total = options.size + options.extra;
  const all: LibraryMemory[] = [];
  const queries: string[] = [];
  const labelled: LocomoLibrary["labelled"] = [];
  const subjects = new Set<string>();
  const contents = new Set<string>();
  let contentChars = 0;
  for (let round = 0; all.length < total; round++) {
    for (const item of prepared) {
      if (all.length >= total) break;
      const [a, b] = item.pairs[round % item.pairs.length];
      const rename = renamer({ [item.speakers[0]]: a, [item.speakers[1]]: b });
      const label = `${item.conversation.sample_id}-r${round}`;
      if (all.length < options.size) {
        for (const qa of item.conversation.qa) {
          const question = rename(String(qa.question ?? "")).trim();
          if (question.length >= QUERY_MIN_CHARS && question.length <= QUERY_MAX_CHARS) {
            queries.push(question);
          }
        }
        for (const { question, category, evidence } of scoredQuestions(item.conversation)) {
          labelled.push({
            question: rename(String(question.question ?? "")).trim(),
            category,
            evidence: [...evidence].map((diaId) => `, ${label} ${diaId}`),
          });
        }
      }
      for (const turn of item.turns) {
        if (all.length >= total) break;
        const speaker = rename(turn.turn.speaker);
        const listener = speaker === a ? b : a;
        const photo = turn.turn.blip_caption
          ? ` [shared a photo: ${rename(turn.turn.blip_caption)}]`
          : "";
        const date = item.dates.get(turn.session) ?? "";
        let content = `${speaker} to ${listener} (session ${turn.session}, ${date}): ${
          rename(turn.turn.text)
        }${photo}`;
        if (content.length < CONTENT_MIN_CHARS) content += ` (turn ${turn.diaId} of ${label})`;
        // Rounds past the number of name pairs, or a turn said twice, would repeat text.
        if (contents.has(content)) content += ` (#${all.length})`;
        let subject = `${speaker} to ${listener}, ${label} ${turn.diaId}`;
        if (subjects.has(subject.toLowerCase())) subject += ` #${all.length}`;
        contents.add(content);
        subjects.add(subject.toLowerCase());
        contentChars += content.length;
        all.push({
          subject,
          content,
          tags: ["locomo", item.conversation.sample_id.toLowerCase()],
          eventTime: turn.time,
        });
      }
    }
  }
  const vocabulary = new Set<string>();
  for (const memory of all.slice(0, Math.min(all.length, 5_000))) {
    for (const word of memory.content.toLowerCase().match(/[a-z]+/g) ?? []) vocabulary.add(word);
  }
  return {
    memories: all.slice(0, options.size),
    extra: all.slice(options.size),
    queries: shuffled(queries, random),
    labelled,
    vocabulary: [...vocabulary].sort(),
    contentCharsMean: Math.round(contentChars / Math.max(1, all.length)),
  };
}
