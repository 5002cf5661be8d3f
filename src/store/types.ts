/**
 * The records the store reads and writes. Domain code sees only these shapes,
 * never SQL rows, so another backend (docs/SPEC.md §15) can produce the same values.
 * @module
 */

/** How far a fact can be trusted, highest first. */
export const SOURCE_TYPES = [
  "user_confirmed",
  "document_extracted",
  "agent_generated",
  "unknown",
] as const;
/** One of {@linkcode SOURCE_TYPES}. */
export type SourceType = typeof SOURCE_TYPES[number];

/** How a memory is guarded against change. */
export const PROTECTION_LEVELS = ["normal", "protected", "locked"] as const;
/** One of {@linkcode PROTECTION_LEVELS}. */
export type ProtectionLevel = typeof PROTECTION_LEVELS[number];

/** Lifecycle states; `deleted` is a soft delete. */
export const MEMORY_STATUSES = ["active", "superseded", "pending", "retired", "deleted"] as const;
/** One of {@linkcode MEMORY_STATUSES}. */
export type MemoryStatus = typeof MEMORY_STATUSES[number];

/** A stored fact. */
export interface MemoryRecord {
  id: number;
  subject: string;
  content: string;
  contentSha: string;
  tags: string[];
  workspace: string;
  workspaceCanonical: string;
  sourceType: SourceType;
  sourceRef: string | null;
  eventTime: string | null;
  ingestTime: string;
  /** When the fact became true (ISO 8601), null when not known (docs/SPEC.md §16). */
  validFrom: string | null;
  /** When the fact stopped being true, null while it still holds or when not known. */
  validTo: string | null;
  confidence: number;
  protectionLevel: ProtectionLevel;
  status: MemoryStatus;
  version: number;
  agentId: string;
  client: string;
  metadata: Record<string, unknown>;
  supersededBy: number | null;
  /** The memory this one continues (a reply's question, a section's predecessor). */
  follows: number | null;
  createdAt: string;
  updatedAt: string;
}

/** The fields a new memory is written with. */
export type NewMemory = Omit<MemoryRecord, "id" | "version" | "supersededBy"> & {
  /**
   * The word index's tokens of the subject and the content (`indexTokens` of each), when the
   * writer computed them already (a bulk import, on its worker); else the store computes them.
   */
  indexTokens?: FieldTokens;
};

/** A memory's word-index tokens of subject and content (src/text/index_terms.ts `indexTokens`). */
export interface FieldTokens {
  subject: string[];
  content: string[];
}

/** The fields an update may change; the version is bumped by the caller. */
export interface MemoryChange {
  subject?: string;
  content?: string;
  contentSha?: string;
  tags?: string[];
  version?: number;
  /** A new validity window edge; null clears it. */
  validFrom?: string | null;
  validTo?: string | null;
  updatedAt: string;
}

/** One earlier version of a memory. */
export interface HistoryEntry {
  memoryId: number;
  version: number;
  subject: string;
  content: string;
  contentSha: string;
  tags: string[];
  status: MemoryStatus;
  /** The version's validity window as it stood when the version was replaced (closed by it). */
  validFrom: string | null;
  validTo: string | null;
  changedAt: string;
  changedBy: string;
  changedByClient: string;
  reason: string | null;
}

/** One governance or write event. */
export interface AuditEntry {
  at: string;
  action: string;
  memoryId: number | null;
  agentId: string;
  client: string;
  reason: string | null;
  detail: Record<string, unknown>;
}

/** Restrictions every recall channel applies in SQL. */
export interface RecallFilters {
  statuses: readonly MemoryStatus[];
  /** Canonical workspace names; undefined spans the library. */
  workspaces?: readonly string[];
  /** Canonical workspace names left out (the recall blacklist). */
  excludeWorkspaces?: readonly string[];
  /** Every tag must be present (AND). */
  tagsAll?: readonly string[];
  /** Inclusive lower bound on event_time (ingest_time when absent). */
  after?: string;
  /** Exclusive upper bound on event_time (ingest_time when absent). */
  before?: string;
  /**
   * `after`/`before` test the validity window where a memory has one (the window overlaps
   * [after, before)), else its event time: how a time phrase filters (issue 34).
   */
  byValidity?: boolean;
  sourceTypes?: readonly SourceType[];
  /** Only memories at these protection levels. */
  protectionLevels?: readonly ProtectionLevel[];
}

/** A candidate from the full-text channel; lower bm25 is better. */
export interface LexicalHit {
  id: number;
  /** Full-text relevance (BM25), larger is better. */
  relevance: number;
}

/** One slice of the word index's check against `memories` (`MaintenanceRepository.wordIndexSlice`). */
export interface WordIndexSlice {
  /** The last id the slice covered: the next slice starts after it. */
  throughId: number;
  /** True for the slice that reached the last memory (it also counted index rows past it). */
  last: boolean;
  /** Memories not purged with ids in the slice. */
  memories: number;
  /** Index rows with ids in the slice. */
  indexed: number;
}
