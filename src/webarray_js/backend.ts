/**
 * What a GPU API must offer to run webarray's commands: the device protocol of
 * src/webarray/executors/protocol.py, seen from the GPU thread. Handles and kernel
 * ids are chosen by Python. WebGPU implements it in webgpu.ts; WebGL2 will be
 * another implementation of the same interface.
 */

import { DeviceError, STATUS_UNSUPPORTED } from "./protocol";
import { WebGPUBackend } from "./webgpu";

export type BackendKind = "webgpu" | "webgl2";

/** What Python's executor learns at start-up (the INFO reply). */
export interface BackendInfo {
  backend: BackendKind;
  adapter_info: {
    vendor: string;
    device: string;
    description: string;
    backend: string;
    adapter_type: string;
  };
  max_buffer_size: number;
  max_binding_size: number;
  max_workgroups_per_dim: number;
  binding_alignment: number;
}

export interface Backend {
  readonly info: BackendInfo;
  /** Why the device is gone, or null while it works. */
  readonly lost: string | null;
  /** Called once when the device is lost. */
  onLost: ((message: string) => void) | null;
  /** A buffer of nbytes; with check, resolves once the allocation is known to succeed. */
  alloc(handle: number, nbytes: number, check: boolean): Promise<void> | void;
  free(handle: number): void;
  /** Copies data at once; ordered after every dispatch issued before. */
  write(handle: number, offset: number, data: Uint8Array): void;
  /** Waits for issued work and copies nbytes into the view that out(nbytes) returns. */
  read(handle: number, offset: number, nbytes: number, out: (nbytes: number) => Uint8Array): Promise<void>;
  /** Rejects with a DeviceError(STATUS_KERNEL) carrying the compiler's messages. */
  compile(kernel: number, source: string): Promise<void>;
  dispatch(kernel: number, bindings: Uint32Array, uniforms: Uint8Array, gx: number, gy: number, gz: number): void;
  /** Submits what is recorded (does not wait). */
  flush(): void;
  /** Resolves once everything submitted so far has finished. */
  sync(): Promise<void>;
  /** The first error that happened asynchronously since the last call, once all
   * recorded work has been checked for errors. */
  takeError(): Promise<DeviceError | null>;
  destroy(): void;
}

export async function createBackend(kind: BackendKind): Promise<Backend> {
  if (kind === "webgpu") return WebGPUBackend.create();
  throw new DeviceError(
    STATUS_UNSUPPORTED,
    "the WebGL2 backend is not implemented yet; use backend 'webgpu' (or 'auto' where WebGPU exists)",
  );
}

/** The backend 'auto' stands for in this context. */
export async function resolveBackend(kind: BackendKind | "auto"): Promise<BackendKind> {
  if (kind !== "auto") return kind;
  const gpu = (globalThis.navigator as Navigator | undefined)?.gpu;
  if (gpu && (await gpu.requestAdapter())) return "webgpu";
  return "webgl2";
}
