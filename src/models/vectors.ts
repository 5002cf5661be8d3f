/**
 * Whether an embedding has a direction at all. A text without one word the model knows pools to
 * the zero vector; cosine against it is 0/0, which sqlite-vec returns as a NULL distance (read
 * as 0, i.e. similarity 1). Such a vector must never be stored or searched with.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { hasDirection } from "./vectors.ts";
 *
 * assert.equal(hasDirection(new Float32Array(100)), false);
 * assert.equal(hasDirection(Float32Array.of(0.6, 0.8)), true);
 * ```
 * @module
 */

/**
 * Smallest Euclidean norm a vector may have and still count as a direction. Normalized models
 * give norm 1 or exactly 0; an unnormalized one can give a tiny mean of token vectors whose
 * components (~1e-8 each at this norm for 100–1024 dims) sit at float32 rounding noise
 * (epsilon 1.2e-7 relative to weights of 0.01–1), so its direction means nothing.
 */
export const MIN_VECTOR_NORM = 1e-6;

/** The Euclidean norm; not finite when a component is not. */
export function vectorNorm(vector: ArrayLike<number>): number {
  let sum = 0;
  for (let i = 0; i < vector.length; i++) sum += vector[i] * vector[i];
  return Math.sqrt(sum);
}

/** True when `vector` is finite with a norm of at least {@linkcode MIN_VECTOR_NORM}. */
export function hasDirection(vector: ArrayLike<number> | undefined): boolean {
  if (!vector || vector.length === 0) return false;
  const norm = vectorNorm(vector);
  return Number.isFinite(norm) && norm >= MIN_VECTOR_NORM;
}
