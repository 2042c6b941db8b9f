/**
 * The two backends of backend.ts's interface, and which one 'auto' stands for.
 */

import type { Backend, BackendKind } from "./backend";
import { WebGL2Backend } from "./webgl2";
import { WebGPUBackend } from "./webgpu";

export async function createBackend(kind: BackendKind): Promise<Backend> {
  if (kind === "webgpu") return WebGPUBackend.create();
  return WebGL2Backend.create();
}

/** The backend 'auto' stands for in this context. */
export async function resolveBackend(kind: BackendKind | "auto"): Promise<BackendKind> {
  if (kind !== "auto") return kind;
  const gpu = (globalThis.navigator as Navigator | undefined)?.gpu;
  if (gpu && (await gpu.requestAdapter())) return "webgpu";
  return "webgl2";
}
