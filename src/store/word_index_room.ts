/**
 * Lexical recall and filtered reads on SQLite: {@linkcode WordIndexRepository} (the word index
 * is an FTS5 table of mema's own tokens; the `MATCH` text is built here, from the tokens recall
 * hands over) and {@linkcode RecallRepository}.
 *
 * @module
 */
import * as memoryLinks from "./memory_links_sql.ts";
import * as recall from "./recall_sql.ts";
import * as terms from "./terms_sql.ts";
import { indexTokens } from "../text/index_terms.ts";
import type { RecallRepository, WordIndexRepository } from "./repositories.ts";
import type { SqliteCore, Sync } from "./sqlite_core.ts";

/** Any of the tokens, as FTS5 phrases (mema's tokens are letters and digits only). */
export function anyTokenMatch(tokens: readonly string[]): string {
  return tokens.map((token) => `"${token}"`).join(" OR ");
}

/** Every one of the tokens in the `tags` column, as an FTS5 expression. */
function allTagsMatch(tokens: readonly string[]): string {
  return `tags : (${tokens.map((token) => `"${token}"`).join(" AND ")})`;
}

/** The word index room over `core`'s connection. */
export function sqliteWordIndex(core: SqliteCore): Sync<WordIndexRepository> {
  const connection = core.connection;
  const db = connection.db;
  return {
    termHits: (tokens, filters, limit) =>
      terms.selectTermHits(
        db,
        anyTokenMatch(tokens),
        filters,
        limit,
        (missing) => core.tokenFrequencies(missing),
      ),
    weightedTermHits(tokens, filters, limit) {
      // Memories held in the record cache, or looked up by an earlier lookup with the same
      // filters, are filtered without a query.
      const stamp = connection.memoriesStamp();
      const verdicts = core.scopes.of(stamp, JSON.stringify(filters));
      return terms.selectWeightedTermHits(
        db,
        tokens,
        filters,
        limit,
        (id) => {
          const record = core.records.peek(stamp, id);
          return record ? recall.recordPassesFilters(record, filters) : verdicts?.get(id);
        },
        ({ token, newest }) =>
          newest === undefined
            ? core.terms.postings(stamp, token, () => terms.selectPostings(db, token))
            : core.terms.newestPostings(
              stamp,
              token,
              newest,
              () => terms.selectPostings(db, token, newest),
            ),
        verdicts && ((id, passes) => verdicts.set(id, passes)),
      );
    },
    tokenFrequencies: (tokens) => core.tokenFrequencies(tokens),
    vocabularyByPrefix(prefix, lengths, limit) {
      const held = core.heldCounts(connection.memoriesStamp());
      return terms.selectVocabularyByPrefix(db, prefix, lengths, limit, held);
    },
    indexedMemories: () => core.indexedMemories(),
    likeHits: (words, filters, limit) => recall.selectLikeHits(db, words, filters, limit),
    linkedTodos(options) {
      const tokens = indexTokens(options.todoTag);
      const todoMatch = core.capabilities.fts && tokens.length > 0
        ? allTagsMatch(tokens)
        : undefined;
      // A word no memory holds means no todo to link (one lookup in the frequencies).
      if (todoMatch !== undefined) {
        const frequencies = core.tokenFrequencies(tokens);
        if (tokens.some((token) => !frequencies.get(token))) return [];
      }
      return memoryLinks.selectLinkedTodos(db, { ...options, todoMatch });
    },
  };
}

/** The filtered reads of recall over `core`'s connection. */
export function sqliteRecall(core: SqliteCore): Sync<RecallRepository> {
  const db = core.connection.db;
  return {
    browse: (filters, page) => recall.selectBrowsePage(db, filters, page),
    filterMemoryIds: (ids, filters) => recall.selectFilteredVersions(db, ids, filters),
    followersOf: (ids, filters) => recall.selectFollowers(db, ids, filters),
    countFiltered: (filters) => recall.countFiltered(db, filters),
  };
}
