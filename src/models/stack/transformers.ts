/**
 * The install root of the model runtime (`src/models/model_stack.ts`): `deno install
 * --entrypoint` on this file fetches transformers.js with onnxruntime into node_modules,
 * pinned by `transformers.lock`. Nothing imports it, so `deno run main.ts` never installs it.
 * @module
 */
// deno-lint-ignore no-import-prefix -- on purpose: in deno.json it would install for every run
import "npm:@huggingface/transformers@4.3.2";
