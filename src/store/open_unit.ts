/**
 * Which async context holds a connection. One SQLite connection serves every request of the
 * process, and a unit of work's body may await between its statements; while it does, another
 * request's continuation runs. {@linkcode OpenUnit} marks the body's async context
 * (`AsyncLocalStorage`, which follows it through every `await`) so the connection can tell a call
 * from inside the open unit (it runs in the transaction) from one of another request (it waits
 * until the unit ends, so it never reads uncommitted rows or lands in the transaction).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { OpenUnit } from "./open_unit.ts";
 *
 * const gate = new OpenUnit();
 * await gate.run(async () => {
 *   assert.ok(gate.inside()); // the body runs inside its unit
 * });
 * assert.ok(gate.admits()); // no unit is open now
 * ```
 * @module
 */
import { AsyncLocalStorage } from "node:async_hooks";

/** A unit of work holding the connection. */
interface Unit {
  /** Resolves when the unit has ended (committed or rolled back). */
  ended: Promise<void>;
}

/** The unit of work open on one connection, if any, and who may use the connection meanwhile. */
export class OpenUnit {
  #open: Unit | undefined;
  readonly #units = new AsyncLocalStorage<Unit>();

  /**
   * True when a call may use the connection now: no unit is open (one comparison, the common
   * case), or the caller runs inside the open one. Everything else waits for {@linkcode turn}.
   */
  admits(): boolean {
    return this.#open === undefined || this.#units.getStore() === this.#open;
  }

  /** True when the caller runs inside the unit open now. */
  inside(): boolean {
    return this.#open !== undefined && this.#units.getStore() === this.#open;
  }

  /**
   * Resolves once the open unit, if any, has ended. Another waiter may take the connection before
   * the caller resumes, so callers ask {@linkcode admits} again in the same step that uses it:
   * `while (!gate.admits()) await gate.turn();`.
   */
  async turn(): Promise<void> {
    while (!this.admits()) await this.#open!.ended;
  }

  /**
   * Runs `fn` as the open unit. The caller has had its {@linkcode turn} and no await lies between
   * that and this call, so no other unit is open.
   */
  async run<T>(fn: () => Promise<T>): Promise<T> {
    let end!: () => void;
    const unit: Unit = { ended: new Promise<void>((resolve) => end = resolve) };
    this.#open = unit;
    try {
      return await this.#units.run(unit, fn);
    } finally {
      this.#open = undefined;
      end();
    }
  }
}
