/**
 * Small named values of the database on PostgreSQL: {@linkcode MetaRepository}.
 *
 * @module
 */
import type { PgCore } from "./core.ts";
import type { MetaRepository } from "../repositories.ts";

/** The meta room over `core`'s pool. */
export function pgMeta(core: PgCore<unknown>): MetaRepository {
  return {
    async getMeta(key) {
      const [row] = await core.q()`SELECT value FROM meta WHERE key = ${key}`;
      return row ? String(row.value) : undefined;
    },
    async setMeta(key, value) {
      await core.q()`INSERT INTO meta (key, value) VALUES (${key}, ${value})
        ON CONFLICT (key) DO UPDATE SET value = excluded.value`;
    },
  };
}
