/**
 * A second core for a bulk import: the text work of the next batch's memories (entity readings,
 * evidence rows: src/memory/prepared_text.ts) is done on a worker (text_worker.ts) while this
 * batch is written, and the write path takes the results (import_bulk.ts). The import reads one
 * batch ahead, so at most two batches are on their way: memory stays bounded. When the worker
 * cannot start or fails, a batch resolves with nothing prepared and the write path does the
 * work itself, as it does without a preparer.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { TextPreparer } from "./text_preparer.ts";
 *
 * const preparer = new TextPreparer();
 * const [prepared] = (await preparer.prepare([{ subject: "db", content: "Billing uses Redis." }]))!;
 * assert.deepEqual(prepared.graph.relations.map((r) => r.type), ["uses"]);
 * preparer.close();
 * ```
 * @module
 */
import type { PreparedText } from "../memory/prepared_text.ts";

/** A batch of texts sent to the worker. */
export interface TextsToPrepare {
  id: number;
  texts: { subject: string; content: string }[];
}

/** Prepares texts on a worker started on first use; see the module documentation. */
export class TextPreparer {
  #worker: Worker | undefined;
  #failed = false;
  #nextId = 1;
  readonly #waiting = new Map<number, (prepared: PreparedText[] | undefined) => void>();

  /** The prepared work of each text, in order; undefined when the worker could not do it. */
  prepare(
    texts: readonly { subject: string; content: string }[],
  ): Promise<PreparedText[] | undefined> {
    const worker = texts.length === 0 ? undefined : this.#start();
    if (worker === undefined) return Promise.resolve(undefined);
    const id = this.#nextId++;
    return new Promise((resolve) => {
      this.#waiting.set(id, resolve);
      const message: TextsToPrepare = {
        id,
        texts: texts.map(({ subject, content }) => ({ subject, content })),
      };
      worker.postMessage(message);
    });
  }

  /** Stops the worker; batches still on their way resolve with nothing prepared. */
  close(): void {
    this.#worker?.terminate();
    this.#worker = undefined;
    this.#failed = true;
    this.#settleAll();
  }

  #start(): Worker | undefined {
    if (this.#failed) return undefined;
    if (this.#worker) return this.#worker;
    try {
      const worker = new Worker(new URL("./text_worker.ts", import.meta.url).href, {
        type: "module",
      });
      worker.onmessage = (event: MessageEvent<{ id: number; prepared: PreparedText[] }>) => {
        const resolve = this.#waiting.get(event.data.id);
        this.#waiting.delete(event.data.id);
        resolve?.(event.data.prepared);
      };
      worker.onerror = (event) => {
        // The import goes on without it: the write path prepares its own texts.
        event.preventDefault();
        this.close();
      };
      this.#worker = worker;
      return worker;
    } catch {
      this.#failed = true;
      return undefined;
    }
  }

  #settleAll(): void {
    for (const resolve of this.#waiting.values()) resolve(undefined);
    this.#waiting.clear();
  }
}
