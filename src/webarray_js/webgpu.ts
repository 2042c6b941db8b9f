/**
 * The WebGPU backend: webarray's commands on a GPUDevice.
 *
 * Dispatches are recorded into one open compute pass and submitted together (at a
 * FLUSH, before a write or read, when the command ring runs empty, or after
 * BATCH_LIMIT dispatches). The uniforms of a batch are packed into one arena buffer
 * written once per submit. Each batch runs inside validation and out-of-memory error
 * scopes, so an error of any recorded command reaches Python at the next reply.
 *
 * A kernel whose bindings are all storage buffers (every generated one) takes its uniforms
 * at a dynamic offset into the arena, so its bind group depends only on the buffers bound
 * and is kept (``groups``) for the next dispatch over the same ones: a loop's forced results
 * and its recycled buffers create no bind group after the first rounds (native.py does the
 * same).
 */

import type { Backend, BackendInfo } from "./backend";
import {
  DeviceError,
  STATUS_DEVICE_LOST,
  STATUS_INTERNAL,
  STATUS_KERNEL,
  STATUS_OUT_OF_MEMORY,
  STATUS_UNSUPPORTED,
  STATUS_VALIDATION,
} from "./protocol";

const BATCH_LIMIT = 4096; // dispatches per compute pass before a submit is forced
const ARENA_BYTES = 1 << 20; // uniform arena of a batch (grows for a huge uniform block)
const GROUP_CACHE = 2048; // bind groups kept (all dropped when full, or when a buffer is freed)

interface Kernel {
  pipeline: GPUComputePipeline;
  layout: GPUBindGroupLayout;
  /** the uniforms' binding takes a dynamic offset: its bind groups are kept and reused */
  dynamic: boolean;
}

const align = (n: number, a: number): number => Math.ceil(n / a) * a;

const BINDING = /@group\(\s*(\d+)\s*\)\s*@binding\(\s*(\d+)\s*\)\s*var\s*(<[^>]*>)?/g;

/**
 * Per binding 0..n of a kernel, whether it is written (read_write); null unless binding 0
 * is read-only storage and every binding is a storage buffer of group 0. The same rule as
 * storage_bindings in executors/native.py: such kernels get a layout of every binding
 * they declare, where an "auto" layout would drop those a kernel declares but does not
 * use (and binding them would then fail).
 */
export function storageBindings(source: string): boolean[] | null {
  const found = new Map<number, boolean>();
  for (const m of source.matchAll(BINDING)) {
    const parts = (m[3] ?? "<>").slice(1, -1).split(",").map((p) => p.trim());
    if (m[1] !== "0" || parts[0] !== "storage" || parts.length !== 2) return null;
    found.set(Number(m[2]), parts[1] === "read_write");
  }
  const writable: boolean[] = [];
  for (let i = 0; i < found.size; i++) {
    if (!found.has(i)) return null;
    writable.push(found.get(i)!);
  }
  return writable.length && !writable[0] ? writable : null;
}

/** The WGSL compiler behind this JavaScript's WebGPU, from its user agent: naga in Firefox
 * and Deno (wgpu), Tint in Chromium-based browsers and Node's npm `webgpu` (Dawn), WebKit's
 * own in Safari. */
export function wgslCompiler(agent: string = globalThis.navigator?.userAgent ?? ""): string {
  if (/Firefox\/|Deno\//.test(agent)) return "naga";
  if (/Chrome\/|Chromium\/|Node\.js\//.test(agent)) return "tint";
  if (/Safari\//.test(agent)) return "webkit";
  return "unknown";
}

export function errorFromGPU(e: GPUError): DeviceError {
  if (typeof GPUOutOfMemoryError !== "undefined" && e instanceof GPUOutOfMemoryError) {
    return new DeviceError(STATUS_OUT_OF_MEMORY, `WebGPU ran out of memory: ${e.message}`);
  }
  if (typeof GPUValidationError !== "undefined" && e instanceof GPUValidationError) {
    return new DeviceError(STATUS_VALIDATION, `WebGPU validation error: ${e.message}`);
  }
  return new DeviceError(STATUS_INTERNAL, `WebGPU internal error: ${e.message}`);
}

/** A device with the adapter's largest buffer, binding and workgroup limits. */
export function requestDevice(adapter: GPUAdapter): Promise<GPUDevice> {
  const l = adapter.limits;
  return adapter.requestDevice({
    requiredLimits: {
      maxBufferSize: l.maxBufferSize,
      maxStorageBufferBindingSize: l.maxStorageBufferBindingSize,
      maxStorageBuffersPerShaderStage: l.maxStorageBuffersPerShaderStage,
      maxComputeWorkgroupStorageSize: l.maxComputeWorkgroupStorageSize,
      maxComputeInvocationsPerWorkgroup: l.maxComputeInvocationsPerWorkgroup,
      maxComputeWorkgroupSizeX: l.maxComputeWorkgroupSizeX,
      maxComputeWorkgroupSizeY: l.maxComputeWorkgroupSizeY,
      maxComputeWorkgroupSizeZ: l.maxComputeWorkgroupSizeZ,
    },
  });
}

export class WebGPUBackend implements Backend {
  readonly info: BackendInfo;
  lost: string | null = null;
  private readonly lostError: Promise<never>;
  onLost: ((message: string) => void) | null = null;
  onProgress: (() => void) | null = null;

  private readonly buffers = new Map<number, GPUBuffer>();
  private readonly kernels = new Map<number, Kernel>();
  /** bind groups by kernel, uniforms window and buffer handles (handles are never reused) */
  private readonly groups = new Map<string, GPUBindGroup>();
  private readonly usage = GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST;
  private readonly alignment: number;

  private encoder: GPUCommandEncoder | null = null;
  private pass: GPUComputePassEncoder | null = null;
  private dispatches = 0;
  private arena: Uint8Array<ArrayBuffer>;
  private arenaBuffer: GPUBuffer;
  private arenaUsed = 0;
  private readonly destroyAfterSubmit: GPUBuffer[] = [];
  private staging: GPUBuffer | null = null;

  private readonly scopes: Promise<GPUError | null>[] = [];
  private pending: DeviceError | null = null;

  /** A backend on a new adapter and a new device: at start, and after a loss (renew). */
  static async create(): Promise<WebGPUBackend> {
    const gpu = (globalThis.navigator as Navigator | undefined)?.gpu;
    if (!gpu) {
      throw new DeviceError(
        STATUS_UNSUPPORTED,
        "WebGPU is not available here (navigator.gpu is missing; without a GPU, Chromium " +
          "needs --enable-unsafe-webgpu)",
      );
    }
    const adapter = await gpu.requestAdapter({ powerPreference: "high-performance" });
    if (!adapter) {
      throw new DeviceError(STATUS_UNSUPPORTED, "navigator.gpu.requestAdapter() found no WebGPU adapter");
    }
    return new WebGPUBackend(adapter, await requestDevice(adapter));
  }

  private constructor(
    adapter: GPUAdapter,
    private readonly device: GPUDevice,
  ) {
    const a = adapter.info;
    const l = device.limits;
    this.alignment = l.minStorageBufferOffsetAlignment;
    this.info = {
      backend: "webgpu",
      adapter_info: {
        vendor: a.vendor,
        device: a.device || a.architecture || a.vendor,
        description: a.description || `${a.vendor} ${a.architecture}`.trim(),
        backend: "WebGPU",
        adapter_type: a.isFallbackAdapter ? "CPU (fallback adapter)" : "GPU",
        compiler: wgslCompiler(),
      },
      max_buffer_size: l.maxBufferSize,
      max_binding_size: l.maxStorageBufferBindingSize,
      max_storage_buffers: l.maxStorageBuffersPerShaderStage,
      max_workgroups_per_dim: l.maxComputeWorkgroupsPerDimension,
      max_workgroup_storage: l.maxComputeWorkgroupStorageSize,
      binding_alignment: l.minStorageBufferOffsetAlignment,
    };
    this.arena = new Uint8Array(ARENA_BYTES);
    this.arenaBuffer = this.makeArena(ARENA_BYTES);
    device.addEventListener("uncapturederror", (ev) => {
      this.note(errorFromGPU((ev as GPUUncapturedErrorEvent).error));
    });
    this.lostError = device.lost.then((info) => {
      this.lost ??= `the WebGPU device was lost (${info.reason}): ${info.message || "no details"}`;
      this.onLost?.(this.lost);
      throw new DeviceError(STATUS_DEVICE_LOST, this.lost);
    });
    this.lostError.catch(() => {}); // (raced against every wait: orLost)
  }

  /** p, or DeviceLost once the device is lost: when Chromium's GPU process dies (it did
   * compiling large software-float64 kernels on SwiftShader), a pipeline being compiled
   * may never settle, and the Python worker waited on it for good. */
  private orLost<T>(p: Promise<T>): Promise<T> {
    return Promise.race([p, this.lostError]);
  }

  // -- buffers ----------------------------------------------------------------------

  alloc(handle: number, nbytes: number, check: boolean): Promise<void> | void {
    if (!check) {
      this.buffers.set(handle, this.device.createBuffer({ size: nbytes, usage: this.usage }));
      return;
    }
    this.device.pushErrorScope("validation");
    this.device.pushErrorScope("out-of-memory");
    const buffer = this.device.createBuffer({ size: nbytes, usage: this.usage });
    const oom = this.device.popErrorScope();
    const invalid = this.device.popErrorScope();
    this.buffers.set(handle, buffer);
    return (async () => {
      const error = (await this.orLost(oom)) ?? (await this.orLost(invalid));
      if (error) {
        this.buffers.delete(handle);
        buffer.destroy();
        const e = errorFromGPU(error);
        throw e;
      }
    })();
  }

  free(handle: number): void {
    const buffer = this.buffers.get(handle);
    if (!buffer) return;
    this.buffers.delete(handle);
    this.groups.clear(); // (some may bind it; frees are rare where groups are reused)
    // A buffer used by the open pass must live until that pass is submitted.
    if (this.encoder) this.destroyAfterSubmit.push(buffer);
    else buffer.destroy();
  }

  write(handle: number, offset: number, data: Uint8Array): void {
    this.submit();
    this.device.queue.writeBuffer(this.buffer(handle), offset, data);
  }

  async read(handle: number, offset: number, nbytes: number, out: (n: number) => Uint8Array): Promise<void> {
    const source = this.buffer(handle);
    if (nbytes === 0) {
      out(0);
      return;
    }
    // copies need 4-byte aligned offsets and sizes
    const start = offset - (offset % 4);
    const size = align(offset + nbytes, 4) - start;
    if (!this.staging || this.staging.size < size) {
      this.staging?.destroy();
      this.staging = this.device.createBuffer({
        size: Math.max(size, 1 << 16),
        usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST,
      });
    }
    const staging = this.staging;
    this.submit((encoder) => encoder.copyBufferToBuffer(source, start, staging, 0, size));
    try {
      await this.orLost(staging.mapAsync(GPUMapMode.READ, 0, size));
    } catch (e) {
      throw this.lost
        ? new DeviceError(STATUS_DEVICE_LOST, this.lost)
        : new DeviceError(STATUS_INTERNAL, `reading ${nbytes} bytes back failed: ${String(e)}`);
    }
    out(nbytes).set(new Uint8Array(staging.getMappedRange(0, size), offset - start, nbytes));
    staging.unmap();
  }

  // -- kernels ----------------------------------------------------------------------

  async compile(kernel: number, source: string): Promise<void> {
    this.device.pushErrorScope("validation");
    const module = this.device.createShaderModule({ code: source });
    const info = await this.orLost(module.getCompilationInfo());
    const errors = info.messages
      .filter((m) => m.type === "error")
      .map((m) => `line ${m.lineNum}:${m.linePos}: ${m.message}`);
    let pipeline: GPUComputePipeline | null = null;
    const writable = storageBindings(source);
    if (errors.length === 0) {
      try {
        const layout = writable === null ? "auto" : this.device.createPipelineLayout({
          bindGroupLayouts: [this.device.createBindGroupLayout({
            entries: writable.map((w, binding) => ({
              binding,
              visibility: GPUShaderStage.COMPUTE,
              buffer: {
                type: w ? "storage" : "read-only-storage",
                hasDynamicOffset: binding === 0,
              } as GPUBufferBindingLayout,
            })),
          })],
        });
        pipeline = await this.orLost(this.device.createComputePipelineAsync({
          layout,
          compute: { module, entryPoint: "main" },
        }));
      } catch (e) {
        errors.push(e instanceof Error ? e.message : String(e));
      }
    }
    let scopeError: GPUError | null = null;
    try {
      scopeError = await this.orLost(this.device.popErrorScope());
    } catch (e) {
      // the GPU process is gone ("Instance dropped in popErrorScope", before device.lost)
      this.lost ??= `the WebGPU device was lost while a kernel compiled: ${e instanceof Error ? e.message : String(e)}`;
      throw new DeviceError(STATUS_DEVICE_LOST, this.lost);
    }
    if (errors.length === 0 && scopeError) errors.push(scopeError.message);
    if (this.lost) throw new DeviceError(STATUS_DEVICE_LOST, this.lost);
    if (!pipeline || errors.length) {
      throw new DeviceError(STATUS_KERNEL, errors.join("\n") || "the pipeline could not be created");
    }
    this.kernels.set(kernel, {
      pipeline,
      layout: pipeline.getBindGroupLayout(0),
      dynamic: writable !== null,
    });
  }

  dispatch(kernel: number, bindings: Uint32Array, uniforms: Uint8Array, gx: number, gy: number, gz: number): void {
    const k = this.kernels.get(kernel);
    if (!k) throw new DeviceError(STATUS_INTERNAL, `dispatch of kernel ${kernel}, which was never compiled`);
    const size = align(Math.max(uniforms.length, 4), 4);
    // a dynamic binding has one size per bind group: the uniforms' rounded to a power of two
    const window = k.dynamic ? Math.max(256, 2 ** Math.ceil(Math.log2(size))) : size;
    let start = align(this.arenaUsed, this.alignment);
    if (start + window > this.arena.length) {
      this.submit();
      start = 0;
      if (window > this.arena.length) this.growArena(window);
    }
    const pass = this.begin();
    this.arena.set(uniforms, start);
    this.arena.fill(0, start + uniforms.length, start + size);
    this.arenaUsed = start + size;
    pass.setPipeline(k.pipeline);
    if (k.dynamic) {
      const key = `${kernel}:${window}:${bindings.join(",")}`;
      let group = this.groups.get(key);
      if (!group) {
        group = this.device.createBindGroup({ layout: k.layout, entries: this.entries(bindings, 0, window) });
        if (this.groups.size >= GROUP_CACHE) this.groups.clear();
        this.groups.set(key, group);
      }
      pass.setBindGroup(0, group, [start]);
    } else {
      pass.setBindGroup(0, this.device.createBindGroup({ layout: k.layout, entries: this.entries(bindings, start, size) }));
    }
    pass.dispatchWorkgroups(gx, gy, gz);
    if (++this.dispatches >= BATCH_LIMIT) this.submit();
  }

  flush(): void {
    this.submit();
  }

  async sync(): Promise<void> {
    this.submit();
    await this.orLost(this.device.queue.onSubmittedWorkDone());
  }

  async takeError(): Promise<DeviceError | null> {
    for (const error of await this.orLost(Promise.all(this.scopes.splice(0)))) {
      if (error) this.note(errorFromGPU(error));
    }
    const e = this.pending;
    this.pending = null;
    return e;
  }

  destroy(): void {
    this.device.destroy();
    this.lost ??= "the WebGPU device was destroyed";
  }

  /** After a loss, a fresh backend (new adapter, new device) for a new executor. */
  renew(): Promise<WebGPUBackend> {
    if (!this.lost) throw new DeviceError(STATUS_INTERNAL, "renew() of a WebGPU device that works");
    this.staging = null;
    this.buffers.clear();
    this.kernels.clear();
    return WebGPUBackend.create();
  }

  /** Testing aid: lose the device now (GPUDevice.destroy()). A WebGPU device does not
   * come back: the next executor gets a fresh one (renew), so ms is not used. */
  simulateLoss(_ms: number): void {
    this.lost ??= "the WebGPU device was lost (simulated with GPUDevice.destroy()): the arrays on it are gone; new arrays go to a fresh device";
    this.device.destroy();
  }

  // -- batches ----------------------------------------------------------------------

  private begin(): GPUComputePassEncoder {
    if (!this.pass) {
      this.device.pushErrorScope("validation");
      this.device.pushErrorScope("out-of-memory");
      this.encoder = this.device.createCommandEncoder();
      this.pass = this.encoder.beginComputePass();
    }
    return this.pass;
  }

  /** Ends the open pass (if any), lets `after` record copies, and submits. */
  private submit(after?: (encoder: GPUCommandEncoder) => void): void {
    const batch = this.encoder !== null;
    if (!batch && !after) return;
    const encoder = this.encoder ?? this.device.createCommandEncoder();
    this.pass?.end();
    after?.(encoder);
    const queue = this.device.queue;
    if (this.arenaUsed > 0) queue.writeBuffer(this.arenaBuffer, 0, this.arena, 0, align(this.arenaUsed, 4));
    queue.submit([encoder.finish()]);
    // each finished submission is progress (backend.ts): a slow device is not a lost one
    if (this.onProgress) void queue.onSubmittedWorkDone().then(() => this.onProgress?.(), () => {});
    if (batch) this.scopes.push(this.device.popErrorScope(), this.device.popErrorScope());
    this.encoder = null;
    this.pass = null;
    this.dispatches = 0;
    this.arenaUsed = 0;
    for (const b of this.destroyAfterSubmit.splice(0)) b.destroy();
  }

  /** A bind group's entries: the arena's uniforms at [offset, offset + size), then the
   * buffers. */
  private entries(bindings: Uint32Array, offset: number, size: number): GPUBindGroupEntry[] {
    const entries: GPUBindGroupEntry[] = [
      { binding: 0, resource: { buffer: this.arenaBuffer, offset, size } },
    ];
    for (let i = 0; i < bindings.length; i++) {
      entries.push({ binding: i + 1, resource: { buffer: this.buffer(bindings[i]) } });
    }
    return entries;
  }

  private buffer(handle: number): GPUBuffer {
    const b = this.buffers.get(handle);
    if (!b) throw new DeviceError(STATUS_INTERNAL, `buffer handle ${handle} is not allocated`);
    return b;
  }

  private makeArena(size: number): GPUBuffer {
    return this.device.createBuffer({ size, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST });
  }

  private growArena(size: number): void {
    const bytes = align(size, 1 << 16);
    this.groups.clear(); // they bind the old arena
    this.arenaBuffer.destroy();
    this.arenaBuffer = this.makeArena(bytes);
    this.arena = new Uint8Array(bytes);
  }

  private note(e: DeviceError): void {
    // out-of-memory says more than the validation errors it causes later
    if (!this.pending || (e.status === STATUS_OUT_OF_MEMORY && this.pending.status !== STATUS_OUT_OF_MEMORY)) {
      this.pending = e;
    }
  }
}
