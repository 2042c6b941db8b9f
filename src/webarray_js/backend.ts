/**
 * What a GPU API must offer to run webarray's commands: the device protocol of
 * src/webarray/executors/protocol.py, seen from the GPU thread. Handles and kernel
 * ids are chosen by Python. WebGPU implements it in webgpu.ts, WebGL2 in webgl2.ts;
 * backends.ts makes one.
 */

import type { DeviceError } from "./protocol";

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
    /** the WGSL compiler behind the device ("naga", "tint", "webkit", "unknown"): Python
     * picks kernel shapes by it (the float32 matmul's) */
    compiler?: string;
  };
  max_buffer_size: number;
  max_binding_size: number;
  /** buffers one kernel may bind (WebGL2: textures one draw may sample) */
  max_storage_buffers: number;
  max_workgroups_per_dim: number;
  /** bytes of workgroup memory one kernel may declare (WebGL2: 0, it has none) */
  max_workgroup_storage: number;
  binding_alignment: number;
}

export interface Backend {
  readonly info: BackendInfo;
  /** Why the device is gone, or null while it works. */
  readonly lost: string | null;
  /** Called once when the device is lost. */
  onLost: ((message: string) => void) | null;
  /** Called when a piece of submitted GPU work has finished: a slow device that keeps
   * finishing pieces is alive (the Python worker's waits are bounded by progress). */
  onProgress: (() => void) | null;
  holdBack?: boolean;
  /** A buffer of nbytes; with check, resolves once the allocation is known to succeed. */
  alloc(handle: number, nbytes: number, check: boolean): Promise<void> | void;
  free(handle: number): void;
  /** Copies data at once; ordered after every dispatch issued before. */
  write(handle: number, offset: number, data: Uint8Array): void;
  /** Waits for issued work and copies nbytes into the view that out(nbytes) returns. */
  read(handle: number, offset: number, nbytes: number, out: (nbytes: number) => Uint8Array): Promise<void>;
  /** Rejects with a DeviceError(STATUS_KERNEL) carrying the compiler's messages. */
  compile(kernel: number, source: string): Promise<void>;
  /** Records a kernel launch; a promise where the backend holds the GPU thread back
   * until earlier work has finished (WebGL2 bounds the work in flight), unless
   * holdBack is false (the JSPI transport runs a batch without a request at once). */
  dispatch(kernel: number, bindings: Uint32Array, uniforms: Uint8Array, gx: number, gy: number, gz: number): Promise<void> | void;
  /** Submits what is recorded (does not wait). */
  flush(): void;
  /** Resolves once everything submitted so far has finished. */
  sync(): Promise<void>;
  /** The first error that happened asynchronously since the last call, once all
   * recorded work has been checked for errors. */
  takeError(): Promise<DeviceError | null>;
  destroy(): void;
  /** Testing aid (SIMULATE_LOSS): lose the device now, restore it after ms if the API can. */
  simulateLoss?(ms: number): void;
}
