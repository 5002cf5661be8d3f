/**
 * The import's text worker (src/portability/text_preparer.ts starts it): prepares the text work
 * of each memory it is sent (src/memory/prepared_text.ts) and answers with the batch's id.
 * It holds nothing between messages and touches no store.
 *
 * @module
 */
import { prepareText } from "../memory/prepared_text.ts";
import type { TextsToPrepare } from "./text_preparer.ts";

// This module runs as a worker: its global scope receives and posts the messages.
const scope = globalThis as unknown as {
  onmessage: ((event: MessageEvent<TextsToPrepare>) => void) | null;
  postMessage(message: unknown): void;
};

scope.onmessage = (event) => {
  const { id, texts } = event.data;
  scope.postMessage({ id, prepared: texts.map((text) => prepareText(text.subject, text.content)) });
};
