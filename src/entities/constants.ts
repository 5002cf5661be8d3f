/**
 * Entity tunables, each beside what chose it.
 * @module
 */

/**
 * Characters of a memory read for entities (subject and content together). Extraction is
 * linear in the text: bench/entities.ts measured ~5 ms for names and relations on 16,000
 * characters and ~1 ms on 4,000 (about 600 words, loaded build machine), and a long imported
 * page names its subjects early. The rest is never read, so the write path's cost stops
 * growing with a memory's size here.
 */
export const ENTITY_TEXT_MAX_CHARS = 4_000;
/** Entities one memory may name (a list of 500 hostnames is one fact, not 500 entities). */
export const ENTITY_MENTIONS_MAX = 64;
/** Relations one memory may give (stated and read together). */
export const ENTITY_RELATIONS_MAX = 32;
/** Characters of an entity's name, caller-named or read. */
export const ENTITY_NAME_MAX_CHARS = 120;
/** Caller-named entities and relations per call (`entities`, `relations` on remember/update). */
export const NAMED_ENTITIES_MAX = 32;
/** Characters of a relation's type. */
export const RELATION_TYPE_MAX_CHARS = 48;

/**
 * How far (characters) a relation's words may stand from its ends: "X depends on Y" joins the
 * nearest names within a clause, never across a long sentence.
 */
export const RELATION_REACH_BEFORE = 60;
/** Characters after the relation's words in which its second end must start. */
export const RELATION_REACH_AFTER = 40;

/** `memory_review` view `entity`: the default token budget of the walk (issue 35). */
export const ENTITY_VIEW_BUDGET_TOKENS = 2_000;
/** The largest budget a caller may ask for. */
export const ENTITY_VIEW_BUDGET_MAX = 20_000;
/** The deepest walk (issue 35: depth ≤ 3). */
export const ENTITY_VIEW_DEPTH_MAX = 3;
/** Facts listed per entity in the walk before the budget decides. */
export const ENTITY_VIEW_FACTS_PER_ENTITY = 10;
/** Relations read per step of the walk. */
export const ENTITY_VIEW_RELATIONS_PER_STEP = 200;
/** Characters of a fact's preview in the entity view. */
export const ENTITY_VIEW_FACT_CHARS = 200;
/** `memory_review` view `entities`: default and largest page. */
export const ENTITY_PAGE_DEFAULT = 50;
export const ENTITY_PAGE_MAX = 200;

/**
 * Facts `find` with `entity` considers (newest first). An entity named by more facts than
 * this is a topic, not a thing; its oldest facts are still reached by words.
 */
export const ENTITY_FACTS_MAX = 2_000;
/** Facts listed on the console's entity page (the rest are counted). */
export const ENTITY_PAGE_FACTS = 50;
/**
 * Facts read per slice of the background backfill (src/entities/backfill.ts): at ~0.6 ms a
 * fact (bench/entities.ts), a slice holds the connection for ~30 ms.
 */
export const ENTITY_BACKFILL_BATCH = 50;
