/**
 * Stop requests for long-running commands: SIGINT and SIGTERM resolve one
 * promise (instead of killing the process), so `mema serve` can stop its
 * transport, its worker and its store in order; and a last-resort exit for
 * when something a cut-off request left behind would keep the process alive.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { listenForStop } from "./stop_signal.ts";
 *
 * const stop = listenForStop();
 * const work = new Promise((resolve) => setTimeout(() => resolve("done"), 1));
 * assert.equal(await Promise.race([work, stop.requested]), "done"); // no SIGINT or SIGTERM came
 * stop.dispose();
 * ```
 * @module
 */
import { logInfo, logWarn } from "../platform/log.ts";

/** A pending stop request. */
export interface StopRequest {
  /** Resolves with the signal's name when SIGINT or SIGTERM arrives. */
  requested: Promise<Deno.Signal>;
  /** Stops listening; the signals act as before again. */
  dispose(): void;
}

const STOP_SIGNALS: Deno.Signal[] = ["SIGINT", "SIGTERM"];

/** Turns SIGINT and SIGTERM into {@linkcode StopRequest.requested}; logs the first one. */
export function listenForStop(): StopRequest {
  const { promise, resolve } = Promise.withResolvers<Deno.Signal>();
  let received = false;
  const listeners = STOP_SIGNALS.map((signal) => {
    const listener = () => {
      if (received) return;
      received = true;
      logInfo(`stopping on ${signal}`);
      resolve(signal);
    };
    try {
      Deno.addSignalListener(signal, listener);
    } catch {
      // Not every platform can listen for every signal (Windows has no SIGTERM).
    }
    return { signal, listener };
  });
  return {
    requested: promise,
    dispose() {
      for (const { signal, listener } of listeners) {
        try {
          Deno.removeSignalListener(signal, listener);
        } catch {
          // never added
        }
      }
    },
  };
}

/**
 * Ends the process with `Deno.exitCode` if it is still running `ms` from now.
 * The timer does not itself keep the process alive, so a process with nothing
 * left to do ends on its own first.
 */
export function exitIfStillRunningAfter(ms: number): void {
  const timer = setTimeout(() => {
    logWarn("an open connection or unfinished work still holds the process; exiting now");
    Deno.exit();
  }, ms);
  Deno.unrefTimer(timer);
}
