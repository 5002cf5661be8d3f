/**
 * What every service verb runs with: the store, who is calling, settings, and the write path's
 * announcements. A leaf: every service folder imports it, it imports no service at run time.
 * @module
 */
import type { JudgeReport } from "../conflicts/judge_state.ts";
import type { SemanticIndex } from "../evidence/semantic.ts";
import type { UsageLedger, UsageRanking } from "../recall/usage.ts";
import type { Store } from "../store/mod.ts";
import type { MemoryEvents } from "./memory_events.ts";

/** Who performs a call; from config or transport headers, never from tool data. */
export interface CallerIdentity {
  client: string;
  agentId: string;
  /**
   * The caller's own workspace (canonical): from the config, `MEMA_WORKSPACE` or
   * `--workspace` over stdio, the `X-Mema-Workspace` header over HTTP.
   */
  workspace?: string;
}

/** Settings services read. */
export interface ServiceSettings {
  workspaceIsolation: "none" | "weak" | "strict";
  includeSize: boolean;
  /** `recall_blacklist.jsonl` beside the database: workspaces unscoped recall leaves out. */
  recallBlacklistPath?: string;
  /** The JSONL file writes go to when the database cannot be written. */
  backupPath?: string;
  /** The IANA zone `find` reads time phrases in; absent: the system's. */
  timeZone?: string;
  /** How usage nudges recall (src/recall/usage.ts); absent: the shipped defaults. */
  usageRanking?: UsageRanking;
}

/** The context passed to every service verb. */
export interface ServiceContext {
  store: Store;
  /** The evidence vector index; absent in contexts that never use vectors. */
  semantic?: SemanticIndex;
  /** The conflict judge's state (src/conflicts/judge_state.ts); absent when none is set up. */
  judge?: { describe(): JudgeReport };
  caller: CallerIdentity;
  settings: ServiceSettings;
  /**
   * Where `find`, `read` and `batch_read` count the memories they hand an agent (a serving
   * process's one ledger); absent: nothing is counted (the console, CLI commands).
   */
  usage?: UsageLedger;
  /** Where the write path announces written memories; built once at composition (src/app/). */
  events: MemoryEvents;
}
