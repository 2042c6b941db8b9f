/**
 * The raw-JS baseline of benchmarks/browser.py: the same dispatches and readbacks that
 * webarray issues, done directly with WebGPU on this thread, without Python or a
 * transport. The benchmark records webarray's dispatches (kernel sources, buffer sizes,
 * uniforms, grids) and replays them here; timings are taken in JS. Plain JavaScript, not
 * part of the library: the benchmark hands this file's text to its page, which imports it.
 *
 * A replay: { sources: WGSL per kernel, buffers: byte sizes of the buffers the dispatches
 * bind, dispatches: [{ kernel, bindings (indices into buffers, for bindings 1..n),
 * uniforms (the words of binding 0), grid }] }.
 */

/** A device with the limits webarray asks for (src/webarray_js/webgpu.ts). */
function requestDevice(adapter) {
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

const STORAGE = GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST;

export class Baseline {
  constructor(device) {
    this.device = device;
    this.pipelines = [];
    this.buffers = [];
    this.dispatches = [];
    this.staging = null;
  }

  static async create() {
    const adapter = await navigator.gpu.requestAdapter({ powerPreference: "high-performance" });
    if (!adapter) throw new Error("no WebGPU adapter for the baseline");
    return new Baseline(await requestDevice(adapter));
  }

  /** Compiles the kernels and makes the buffers (filled with float32 1.0) of a replay. */
  async prepare(replay) {
    for (const b of this.buffers) b.destroy();
    this.pipelines = await Promise.all(
      replay.sources.map((code) =>
        this.device.createComputePipelineAsync({
          layout: "auto",
          compute: { module: this.device.createShaderModule({ code }), entryPoint: "main" },
        }),
      ),
    );
    this.buffers = replay.buffers.map((size) => {
      const b = this.device.createBuffer({ size, usage: STORAGE });
      this.device.queue.writeBuffer(b, 0, new Float32Array(size / 4).fill(1));
      return b;
    });
    this.dispatches = replay.dispatches;
    await this.device.queue.onSubmittedWorkDone();
  }

  /** Milliseconds for `times` rounds of the replay's dispatches: one compute pass, a
   * uniform arena written once, a bind group per dispatch, one submit, then a wait until
   * the GPU is done (what webarray does for a batch ending in a sync). */
  async dispatch(times) {
    const t0 = performance.now();
    const align = this.device.limits.minStorageBufferOffsetAlignment;
    const count = times * this.dispatches.length;
    const arenaBytes = Math.max(count * align, 256);
    const words = new Uint32Array(arenaBytes / 4);
    const arena = this.device.createBuffer({ size: arenaBytes, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST });
    const encoder = this.device.createCommandEncoder();
    const pass = encoder.beginComputePass();
    let slot = 0;
    for (let t = 0; t < times; t++) {
      for (const d of this.dispatches) {
        const offset = slot++ * align;
        words.set(d.uniforms, offset / 4);
        const pipeline = this.pipelines[d.kernel];
        const entries = [
          { binding: 0, resource: { buffer: arena, offset, size: Math.max(4, d.uniforms.length * 4) } },
          ...d.bindings.map((b, i) => ({ binding: i + 1, resource: { buffer: this.buffers[b] } })),
        ];
        pass.setPipeline(pipeline);
        pass.setBindGroup(0, this.device.createBindGroup({ layout: pipeline.getBindGroupLayout(0), entries }));
        pass.dispatchWorkgroups(...d.grid);
      }
    }
    pass.end();
    this.device.queue.writeBuffer(arena, 0, words);
    this.device.queue.submit([encoder.finish()]);
    await this.device.queue.onSubmittedWorkDone();
    arena.destroy();
    return performance.now() - t0;
  }

  /** Milliseconds of each of `times` readbacks of nbytes from the replay's first buffer:
   * copy to a mappable buffer, submit, mapAsync, copy the bytes out. */
  async read(nbytes, times) {
    if (!this.staging || this.staging.size < nbytes) {
      this.staging?.destroy();
      this.staging = this.device.createBuffer({ size: nbytes, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
    }
    const out = [];
    const into = new Uint8Array(nbytes);
    for (let i = 0; i < times; i++) {
      const t0 = performance.now();
      const encoder = this.device.createCommandEncoder();
      encoder.copyBufferToBuffer(this.buffers[0], 0, this.staging, 0, nbytes);
      this.device.queue.submit([encoder.finish()]);
      await this.staging.mapAsync(GPUMapMode.READ, 0, nbytes);
      into.set(new Uint8Array(this.staging.getMappedRange(0, nbytes)));
      this.staging.unmap();
      out.push(performance.now() - t0);
    }
    return out;
  }

  destroy() {
    this.device.destroy();
  }
}
