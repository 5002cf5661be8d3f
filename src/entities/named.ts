/**
 * Entities and relations a caller names on `remember` / `update` (`entities: [...]`,
 * `relations: [{from, type, to}]`): checked here, before anything is written, so bad input
 * changes nothing and says which field is wrong.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { checkNamedGraph } from "./named.ts";
 *
 * const named = checkNamedGraph({
 *   entities: ["Payments API", { name: "Ana Silva", kind: "person" }],
 *   relations: [{ from: "Payments API", type: "owned by", to: "Ana Silva" }],
 * });
 * assert.equal(named?.relations[0].type, "owned_by");
 * assert.throws(() => checkNamedGraph({ entities: [" "] }), /entities\.0/);
 * ```
 * @module
 */
import { MemaError } from "../errors/mod.ts";
import type { NamedGraph } from "../core/memory_events.ts";
import { ENTITY_NAME_MAX_CHARS, NAMED_ENTITIES_MAX, RELATION_TYPE_MAX_CHARS } from "./constants.ts";

/** What the caller sent, before checking. */
export interface NamedGraphInput {
  entities?: readonly (string | { name: string; kind?: string })[];
  relations?: readonly { from: string; type: string; to: string }[];
}

/** The type a relation is stored under: lower case, words joined by `_` ("owned by" → owned_by). */
export function relationType(type: string): string {
  return type.normalize("NFKC").trim().toLowerCase().replace(/[\s-]+/gu, "_");
}

function checkName(name: string, field: string): string {
  const trimmed = name.normalize("NFKC").trim().replace(/\s+/gu, " ");
  if (trimmed === "" || trimmed.length > ENTITY_NAME_MAX_CHARS) {
    throw new MemaError(
      "invalid_input",
      `${field} must be a name of 1 to ${ENTITY_NAME_MAX_CHARS} characters`,
      { field },
    );
  }
  return trimmed;
}

/** The checked graph, or undefined when the caller named nothing. */
export function checkNamedGraph(input: NamedGraphInput): NamedGraph | undefined {
  const entities = input.entities ?? [];
  const relations = input.relations ?? [];
  if (entities.length === 0 && relations.length === 0) return undefined;
  for (const [field, list] of [["entities", entities], ["relations", relations]] as const) {
    if (list.length > NAMED_ENTITIES_MAX) {
      throw new MemaError("invalid_input", `${field} holds more than ${NAMED_ENTITIES_MAX} items`, {
        field,
      });
    }
  }
  return {
    entities: entities.map((entity, i) => {
      const item = typeof entity === "string" ? { name: entity } : entity;
      const kind = item.kind === undefined ? undefined : relationType(item.kind);
      if (kind !== undefined && (kind === "" || kind.length > RELATION_TYPE_MAX_CHARS)) {
        throw new MemaError("invalid_input", `entities.${i}.kind must be a short word`, {
          field: `entities.${i}.kind`,
        });
      }
      return { name: checkName(item.name, `entities.${i}`), ...(kind ? { kind } : {}) };
    }),
    relations: relations.map((relation, i) => {
      const type = relationType(relation.type);
      if (type === "" || type.length > RELATION_TYPE_MAX_CHARS) {
        throw new MemaError(
          "invalid_input",
          `relations.${i}.type must be 1 to ${RELATION_TYPE_MAX_CHARS} characters`,
          { field: `relations.${i}.type` },
        );
      }
      return {
        from: checkName(relation.from, `relations.${i}.from`),
        type,
        to: checkName(relation.to, `relations.${i}.to`),
      };
    }),
  };
}
