/**
 * What a console page or action runs with.
 * @module
 */
import type { MemaConfig } from "../config/mod.ts";
import type { DoctorReport } from "../doctor/mod.ts";
import type { ServiceContext } from "../core/context.ts";
import type { Html } from "./html.ts";
import type { PageFrame } from "./layout.ts";

/** The console process: its configuration and the services it reaches besides the views. */
export interface ConsoleEnv {
  config: MemaConfig;
  /** The doctor report (cached for a short while). */
  doctor(): Promise<DoctorReport>;
}

/** One request's scope: the context (identity `console/<user>`, the chosen workspace). */
export interface ConsoleScope {
  ctx: ServiceContext;
  /** The workspace in view (canonical), or undefined for all workspaces. */
  workspace?: string;
  /** Workspace isolation is `strict`: nothing outside the workspace in view is shown. */
  strict: boolean;
  csrf: string;
  url: URL;
  env: ConsoleEnv;
}

/** A rendered page body. */
export interface PageResult {
  title: string;
  active: PageFrame["active"];
  body: Html;
  status?: number;
}
