/**
 * The WebGL2 backend: webarray's commands on a WebGL2 context (an OffscreenCanvas, so it
 * runs in the GPU worker as well as on the main thread).
 *
 * Storage. A buffer of n bytes is an R32UI 2D texture array holding its ceil(n / 4) u32
 * words row-major: ROW_WORDS (4096) words per row (fewer when the buffer is smaller),
 * LAYER_ROWS (2048) rows per layer (fewer with one layer), as many layers as it takes. So
 * every dtype keeps the word layout of the WebGPU backend, kernels read words with
 * texelFetch, and a buffer may be larger than one 2D texture could be.
 *
 * Kernels. A kernel is one or more draws, generated in Python
 * (src/webarray/kernels/webgl2/): each draw is a vertex and a fragment shader that
 * render one output binding, preceded by a header line
 *     //!draw out=<binding> prim=rect|points
 * and with the fragment shader after a line "//!fragment". "rect" draws two triangles
 * over the rows of the output range (the shaders compute the range from the uniforms
 * and discard pixels outside it); "points" draws one point per invocation (gx of the
 * DISPATCH), placed by the vertex shader at the word it writes: strided and scattered
 * outputs. Uniform words arrive as `uniform uvec4 U[64]`; the backend sets
 * `wa_out` (the output texture's width and height), binds binding k's texture to the
 * sampler `Bk`, and runs each draw once per layer of its output (`wa_layer`). All draws of a dispatch sample the bindings as they were before it: a
 * binding that one of them renders is sampled from a copy taken first (WebGL forbids
 * feedback loops, and in-place kernels such as sorting steps need the old values).
 *
 * Readback: on the page's main thread, readPixels into a pixel-pack buffer, a fence
 * polled from the event loop, then getBufferSubData (the thread never stalls on the GPU);
 * in a worker (the GPU worker, or the Python worker with JSPI), a blocking readPixels,
 * which is faster and holds up nothing else, once the work before it is nearly done.
 *
 * Long work. A slow GPU must not look like a lost one, and one draw must not run so long
 * that the browser's GPU watchdog resets the device. So a draw over more than BAND_WORDS
 * words is split into bands of rows (the scissor), and the work is fenced in pieces: after
 * each band, every FENCE_DRAWS draws or FENCE_WORDS words drawn, and at every flush. Each fence that signals is
 * progress (onProgress: the Python worker waits as long as work keeps finishing; before,
 * Mandelbrot 1024 x 1024 x 500 on SwiftShader ended in DeviceLost after 120 s of one
 * blocking read). At most MAX_PENDING fences may be pending: a dispatch beyond that waits,
 * between tasks, for the oldest (the GPU thread stays responsive, queued work stays
 * bounded); a read waits the same way when more than one piece, or one older than
 * SLOW_MS, is still pending, and reads at once otherwise (the common small case).
 *
 * Context loss: every request raises DeviceLost while the context is lost (Python then
 * marks its device lost: its arrays raise DeviceLost). When the browser restores the
 * context, the backend starts empty and a new Python device (default_device() makes one)
 * works normally.
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

const UNIFORM_VEC4 = 64; // uniform uvec4 U[64]: 256 words
// Words per texture row (fewer in a buffer that is one shorter row): a constant, so that
// shaders address word k as texel (k & 4095, k >> 12) without a division
// (kernels/webgl2/program.py: ROW_SHIFT). Every WebGL2 device we know has
// MAX_TEXTURE_SIZE >= 4096 (the minimum the standard asks is 2048).
const ROW_WORDS = 4096;
const LAYER_ROWS = 2048; // rows per layer (kernels/webgl2/program.py: LAYER_SHIFT)
const BAND_WORDS = 1 << 18; // words one draw renders at most: 64 full rows (module doc)
const FENCE_DRAWS = 64; // draws between two fences at most
const FENCE_WORDS = 1 << 16; // words drawn between two fences at most
const MAX_PENDING = 16; // fences in flight before a dispatch waits
const SLOW_MS = 20; // a read waits between tasks behind a piece pending this long
// A program whose fragment shader has more GLSL than this is drawn once with wa_probe set
// before it is used (probe): SwiftShader compiled float64 sin's shader (~20 KB, software
// binary64) into one that wrote zeros whatever its code said, with no error
const PROBE_BYTES = 4096;
const PROBE_WORD = 0x5a17c0de; // what a probed draw writes (wa_probe)

interface Fence {
  sync: WebGLSync;
  issued: number;
}

interface Texture {
  tex: WebGLTexture;
  /** per layer, a framebuffer with it attached (made at first use: attaching anew each
   * draw costs a completeness check) */
  fbos: (WebGLFramebuffer | null)[];
  words: number;
  width: number;
  height: number;
  layers: number;
}

interface Draw {
  out: number; // 1-based binding
  points: boolean;
  vertex: string;
  fragment: string;
  program: WebGLProgram;
  uniforms: WebGLUniformLocation | null;
  outSize: WebGLUniformLocation | null;
  layer: WebGLUniformLocation | null;
  samplers: (WebGLUniformLocation | null)[]; // per binding (index = binding - 1)
}

function numbered(source: string): string {
  return source
    .split("\n")
    .map((line, i) => `${String(i + 1).padStart(4)}  ${line}`)
    .join("\n");
}

/** A macrotask: lets the browser update fences (WebGL only does so between tasks). */
function nextTask(): Promise<void> {
  return new Promise((resolve) => {
    const ch = new MessageChannel();
    ch.port1.onmessage = () => {
      ch.port1.close();
      resolve();
    };
    ch.port2.postMessage(null);
  });
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

export class WebGL2Backend implements Backend {
  readonly info: BackendInfo;
  lost: string | null = null;
  onLost: ((message: string) => void) | null = null;
  onProgress: (() => void) | null = null;
  holdBack = true;

  private readonly textures = new Map<number, Texture>();
  private readonly kernels = new Map<number, Draw[]>();
  private readonly maxSize: number;
  private readonly width: number;
  private readonly maxLayers: number;
  // a vertex array must be bound to draw, though the shaders take no attributes
  protected vao: WebGLVertexArrayObject;
  private pbo: WebGLBuffer;
  private pboBytes = 0;
  private readonly scratch = new Map<string, Texture>();

  private uniformWords = new Uint32Array(UNIFORM_VEC4 * 4);
  private pending: DeviceError | null = null;
  private contextLost = false;
  private redFormat: boolean | null = null;
  private usedBytes = 0;
  /** GL commands were issued since the last getError / since the last flush */
  private issuedFlag = false;
  private unflushed = false;
  /** pieces of issued work, oldest first, and the draws since the last fence */
  private fences: Fence[] = [];
  private unfenced = 0;
  private unfencedWords = 0;

  private get issued(): boolean {
    return this.issuedFlag;
  }

  private set issued(v: boolean) {
    this.issuedFlag = v;
    if (v) this.unflushed = true;
  }
  private restoreAfter: { ext: WEBGL_lose_context; ms: number } | null = null;
  /** In a worker, reads block on readPixels: that holds up no page, and answers a 64-byte
   * read in 0.6 ms where a pixel-pack buffer's fence, which WebGL only updates between
   * tasks, took 2.8 ms (SwiftShader). On the page's main thread, reads go through the
   * pixel-pack buffer and a fence, and the thread keeps running meanwhile. */
  private readonly blockingReads = typeof (globalThis as { document?: unknown }).document === "undefined";
  /** Bytes of textures this backend allocates at most: WebGL has no out-of-memory error
   * one can rely on (drivers allocate lazily, browsers lose the context instead), so a
   * budget makes allocation failures MemoryError: a quarter of the device memory the
   * browser reports (navigator.deviceMemory, GiB; 4 where it reports none), at most 2 GiB
   * (Chromium on SwiftShader lost the context past about 4 GiB of textures). */
  private readonly budget: number;

  static create(): WebGL2Backend {
    if (typeof OffscreenCanvas === "undefined") {
      throw new DeviceError(STATUS_UNSUPPORTED, "WebGL2 needs OffscreenCanvas, which this browser lacks");
    }
    const canvas = new OffscreenCanvas(1, 1);
    const gl = canvas.getContext("webgl2", {
      antialias: false,
      depth: false,
      stencil: false,
      alpha: true,
      premultipliedAlpha: false,
      preserveDrawingBuffer: false,
      powerPreference: "high-performance",
    }) as WebGL2RenderingContext | null;
    if (!gl) {
      throw new DeviceError(STATUS_UNSUPPORTED, "WebGL2 is not available here (getContext('webgl2') returned null)");
    }
    return new WebGL2Backend(canvas, gl);
  }

  private constructor(
    canvas: OffscreenCanvas,
    private readonly gl: WebGL2RenderingContext,
  ) {
    this.maxSize = gl.getParameter(gl.MAX_TEXTURE_SIZE) as number;
    if (this.maxSize < ROW_WORDS) {
      throw new DeviceError(
        STATUS_UNSUPPORTED,
        `webarray's WebGL2 backend needs MAX_TEXTURE_SIZE >= ${ROW_WORDS}; this device has ${this.maxSize}`,
      );
    }
    this.width = ROW_WORDS;
    const dbg = gl.getExtension("WEBGL_debug_renderer_info");
    const renderer = String(dbg ? gl.getParameter(dbg.UNMASKED_RENDERER_WEBGL) : gl.getParameter(gl.RENDERER));
    const vendor = String(dbg ? gl.getParameter(dbg.UNMASKED_VENDOR_WEBGL) : gl.getParameter(gl.VENDOR));
    const software = /swiftshader|llvmpipe|software/i.test(renderer);
    this.maxLayers = gl.getParameter(gl.MAX_ARRAY_TEXTURE_LAYERS) as number;
    const gib = (globalThis.navigator as (Navigator & { deviceMemory?: number }) | undefined)?.deviceMemory;
    this.budget = Math.floor(Math.min((gib ?? 4) / 4, 2) * 2 ** 30);
    // the largest buffer: one texture array of all layers, within the memory budget, and
    // 512 MiB at most (on SwiftShader Chromium lost the context making 1 GiB ones beside
    // other arrays; eight of 512 MiB were fine)
    const maxBytes = Math.min(ROW_WORDS * LAYER_ROWS * this.maxLayers * 4, this.budget, 2 ** 29);
    this.info = {
      backend: "webgl2",
      adapter_info: {
        vendor,
        device: renderer,
        description: `${String(gl.getParameter(gl.VERSION))}; ${renderer}`,
        backend: "WebGL2",
        adapter_type: software ? "CPU (software renderer)" : "GPU",
      },
      max_buffer_size: maxBytes,
      max_binding_size: maxBytes,
      max_storage_buffers: Math.min(
        gl.getParameter(gl.MAX_TEXTURE_IMAGE_UNITS) as number,
        gl.getParameter(gl.MAX_VERTEX_TEXTURE_IMAGE_UNITS) as number,
      ),
      max_workgroups_per_dim: 65535,
      max_workgroup_storage: 0,
      binding_alignment: 4,
    };
    [this.vao, this.pbo] = this.makeObjects();
    canvas.addEventListener("webglcontextlost", (ev) => {
      ev.preventDefault(); // ask for a restore
      this.contextLost = true;
      const simulated = this.restoreAfter;
      this.restoreAfter = null;
      if (simulated) setTimeout(() => simulated.ext.restoreContext(), simulated.ms);
    });
    canvas.addEventListener("webglcontextrestored", () => this.restore());
  }

  private makeObjects(): [WebGLVertexArrayObject, WebGLBuffer] {
    const gl = this.gl;
    const vao = gl.createVertexArray();
    const pbo = gl.createBuffer();
    if (!vao || !pbo) throw this.lostOr("creating WebGL2 objects failed");
    gl.bindVertexArray(vao);
    gl.disable(gl.BLEND);
    gl.disable(gl.DEPTH_TEST);
    gl.disable(gl.DITHER);
    gl.pixelStorei(gl.PACK_ALIGNMENT, 4);
    gl.pixelStorei(gl.UNPACK_ALIGNMENT, 4);
    this.pboBytes = 0;
    return [vao, pbo];
  }

  /** After a restore the context is empty: webarray's arrays and kernels of before are
   * gone, and Python (which got DeviceLost) starts a new device with new handles. */
  private restore(): void {
    this.fences = [];
    this.unfenced = 0;
    this.unfencedWords = 0;
    this.textures.clear();
    this.kernels.clear();
    this.scratch.clear();
    this.usedBytes = 0;
    this.redFormat = null;
    this.pboBytes = 0;
    [this.vao, this.pbo] = this.makeObjects();
    this.contextLost = false;
  }

  /** The context is lost: the flag the loss event sets, or the context itself, which
   * knows at once (the event comes a task later). */
  private isLost(): boolean {
    return this.contextLost || this.gl.isContextLost();
  }

  private lostOr(message: string): DeviceError {
    if (this.isLost()) {
      return new DeviceError(
        STATUS_DEVICE_LOST,
        "the WebGL2 context was lost (the browser reclaimed the GPU): the arrays on it are gone; " +
          "once the browser restores the context, new arrays go to a new device",
      );
    }
    return new DeviceError(STATUS_INTERNAL, message);
  }

  // -- buffers ----------------------------------------------------------------------

  private makeTexture(width: number, height: number, layers: number): WebGLTexture {
    const gl = this.gl;
    const tex = gl.createTexture();
    if (!tex) throw this.lostOr("createTexture failed");
    gl.bindTexture(gl.TEXTURE_2D_ARRAY, tex);
    gl.texParameteri(gl.TEXTURE_2D_ARRAY, gl.TEXTURE_MIN_FILTER, gl.NEAREST);
    gl.texParameteri(gl.TEXTURE_2D_ARRAY, gl.TEXTURE_MAG_FILTER, gl.NEAREST);
    gl.texStorage3D(gl.TEXTURE_2D_ARRAY, 1, gl.R32UI, width, height, layers);
    return tex;
  }

  alloc(handle: number, nbytes: number, check: boolean): Promise<void> | void {
    const words = Math.max(1, Math.ceil(nbytes / 4));
    const width = Math.min(words, this.width);
    const rows = Math.ceil(words / width);
    const height = Math.min(rows, LAYER_ROWS);
    const layers = Math.ceil(rows / LAYER_ROWS);
    if (layers > this.maxLayers) {
      throw new DeviceError(
        STATUS_OUT_OF_MEMORY,
        `a buffer of ${nbytes} bytes does not fit one WebGL2 texture array (at most ` +
          `${this.info.max_buffer_size} bytes: ${this.maxLayers} layers of ${ROW_WORDS} x ${LAYER_ROWS} words)`,
      );
    }
    const bytes = width * height * layers * 4;
    if (this.usedBytes + bytes > this.budget) {
      throw new DeviceError(
        STATUS_OUT_OF_MEMORY,
        `WebGL2 is out of memory: ${nbytes} more bytes would pass this backend's budget of ` +
          `${this.budget} bytes (${this.usedBytes} in use; WebGL cannot tell how much GPU memory is left)`,
      );
    }
    const gl = this.gl;
    const tex = this.makeTexture(width, height, layers);
    const t: Texture = { tex, fbos: [], words, width, height, layers };
    this.textures.set(handle, t);
    this.issued = true;
    this.usedBytes += bytes;
    if (check) {
      // clearing commits the memory, so a failure shows now rather than at first use
      for (let l = 0; l < layers; l++) {
        gl.bindFramebuffer(gl.DRAW_FRAMEBUFFER, this.framebuffer(t, l));
        gl.clearBufferuiv(gl.COLOR, 0, [0, 0, 0, 0]);
      }
      const error = gl.getError();
      if (gl.isContextLost()) {
        this.textures.delete(handle);
        throw this.lostOr("");
      }
      if (error !== gl.NO_ERROR) {
        // OUT_OF_MEMORY, or a texture array the implementation will not make that large
        this.free(handle);
        throw new DeviceError(
          STATUS_OUT_OF_MEMORY,
          `WebGL2 could not allocate ${nbytes} bytes (out of memory or past the implementation's ` +
            `texture limits: GL error 0x${error.toString(16)})`,
        );
      }
    }
  }

  free(handle: number): void {
    const t = this.textures.get(handle);
    if (!t) return;
    this.textures.delete(handle);
    this.usedBytes -= t.width * t.height * t.layers * 4;
    for (const fbo of t.fbos) if (fbo) this.gl.deleteFramebuffer(fbo);
    this.gl.deleteTexture(t.tex);
  }

  private framebuffer(t: Texture, layer: number): WebGLFramebuffer {
    let fbo = t.fbos[layer];
    if (!fbo) {
      const gl = this.gl;
      fbo = gl.createFramebuffer();
      if (!fbo) throw this.lostOr("createFramebuffer failed");
      gl.bindFramebuffer(gl.DRAW_FRAMEBUFFER, fbo);
      gl.framebufferTextureLayer(gl.DRAW_FRAMEBUFFER, gl.COLOR_ATTACHMENT0, t.tex, 0, layer);
      t.fbos[layer] = fbo;
    }
    return fbo;
  }

  write(handle: number, offset: number, data: Uint8Array): void {
    const t = this.texture(handle);
    if (offset % 4 !== 0) throw new DeviceError(STATUS_INTERNAL, `WebGL2 writes start at a word (offset ${offset})`);
    // a copy: WebGL does not take views of shared memory everywhere, and words must be aligned
    const nwords = Math.ceil(data.length / 4);
    const words = new Uint32Array(nwords);
    new Uint8Array(words.buffer).set(data);
    const gl = this.gl;
    this.issued = true;
    gl.bindTexture(gl.TEXTURE_2D_ARRAY, t.tex);
    let w = offset / 4;
    let done = 0;
    while (done < nwords) {
      const x = w % t.width;
      const row = Math.floor(w / t.width);
      const layer = Math.floor(row / LAYER_ROWS);
      const y = row % LAYER_ROWS;
      if (x === 0 && nwords - done >= t.width) {
        const rows = Math.min(Math.floor((nwords - done) / t.width), t.height - y);
        gl.texSubImage3D(gl.TEXTURE_2D_ARRAY, 0, 0, y, layer, t.width, rows, 1, gl.RED_INTEGER, gl.UNSIGNED_INT, words, done);
        done += rows * t.width;
        w += rows * t.width;
      } else {
        const n = Math.min(t.width - x, nwords - done);
        gl.texSubImage3D(gl.TEXTURE_2D_ARRAY, 0, x, y, layer, n, 1, 1, gl.RED_INTEGER, gl.UNSIGNED_INT, words, done);
        done += n;
        w += n;
      }
    }
  }

  async read(handle: number, offset: number, nbytes: number, out: (n: number) => Uint8Array): Promise<void> {
    const t = this.texture(handle);
    if (this.isLost()) throw this.lostOr("");
    const dest = out(nbytes);
    if (nbytes === 0) return;
    if (this.blockingReads) {
      // a blocking read shows no progress: it may wait for one short piece at most
      this.fence();
      this.poll();
      const oldest = this.fences[0];
      if (this.fences.length > 1 || (oldest && performance.now() - oldest.issued > SLOW_MS)) await this.drain(1);
    }
    const first = Math.floor(offset / 4);
    const last = Math.floor((offset + nbytes - 1) / 4);
    const r0 = Math.floor(first / t.width);
    const r1 = Math.floor(last / t.width);
    // one row: only the words asked for; several: whole rows, layer by layer
    const x0 = r0 === r1 ? first % t.width : 0;
    const width = r0 === r1 ? last - first + 1 : t.width;
    for (let layer = Math.floor(r0 / LAYER_ROWS); layer <= Math.floor(r1 / LAYER_ROWS); layer++) {
      const a = Math.max(r0, layer * LAYER_ROWS);
      const b = Math.min(r1, (layer + 1) * LAYER_ROWS - 1);
      const words = await this.readRows(t, layer, x0, a - layer * LAYER_ROWS, width, b - a + 1);
      // the segment's bytes in the buffer, and the part of them asked for
      const start = (a * t.width + x0) * 4;
      const from = Math.max(offset, start);
      const to = Math.min(offset + nbytes, start + words.byteLength);
      dest.set(new Uint8Array(words.buffer, from - start, to - from), from - offset);
    }
    this.issued = true; // the reply checks for errors
  }

  /** The words of a rectangle of one layer of t. */
  private async readRows(t: Texture, layer: number, x0: number, y0: number, width: number, rows: number): Promise<Uint32Array> {
    const gl = this.gl;
    gl.bindFramebuffer(gl.READ_FRAMEBUFFER, this.framebuffer(t, layer));
    if (this.redFormat === null) {
      this.redFormat =
        gl.getParameter(gl.IMPLEMENTATION_COLOR_READ_FORMAT) === gl.RED_INTEGER &&
        gl.getParameter(gl.IMPLEMENTATION_COLOR_READ_TYPE) === gl.UNSIGNED_INT;
    }
    const comps = this.redFormat ? 1 : 4;
    const format = this.redFormat ? gl.RED_INTEGER : gl.RGBA_INTEGER;
    const words = new Uint32Array(width * rows * comps);
    if (this.blockingReads) {
      // off the page's main thread a blocking readPixels holds up nothing else, and it
      // answers sooner than a fence, which WebGL only updates between tasks
      gl.readPixels(x0, y0, width, rows, format, gl.UNSIGNED_INT, words);
      gl.bindFramebuffer(gl.READ_FRAMEBUFFER, null);
    } else {
      const bytes = words.byteLength;
      gl.bindBuffer(gl.PIXEL_PACK_BUFFER, this.pbo);
      if (bytes > this.pboBytes) {
        this.pboBytes = Math.max(bytes, 1 << 16);
        gl.bufferData(gl.PIXEL_PACK_BUFFER, this.pboBytes, gl.STREAM_READ);
      }
      gl.readPixels(x0, y0, width, rows, format, gl.UNSIGNED_INT, 0);
      gl.bindBuffer(gl.PIXEL_PACK_BUFFER, null);
      gl.bindFramebuffer(gl.READ_FRAMEBUFFER, null);
      this.issued = true;
      await this.finish();
      gl.bindBuffer(gl.PIXEL_PACK_BUFFER, this.pbo);
      gl.getBufferSubData(gl.PIXEL_PACK_BUFFER, 0, words);
      gl.bindBuffer(gl.PIXEL_PACK_BUFFER, null);
    }
    if (comps === 1) return words;
    const result = new Uint32Array(width * rows);
    for (let i = 0; i < result.length; i++) result[i] = words[4 * i];
    return result;
  }

  /** Resolves once every command issued so far has finished. */
  private async finish(): Promise<void> {
    this.fence(true);
    await this.drain(0);
  }

  /** Ends the current piece of work with a fence (and submits it), if draws were issued
   * since the last one; with always, even if not (other commands to wait for). */
  private fence(always = false): void {
    if (this.unfenced === 0 && !always) return;
    const gl = this.gl;
    const sync = gl.fenceSync(gl.SYNC_GPU_COMMANDS_COMPLETE, 0);
    if (!sync) throw this.lostOr("fenceSync failed");
    gl.flush();
    this.unflushed = false;
    this.fences.push({ sync, issued: performance.now() });
    this.unfenced = 0;
    this.unfencedWords = 0;
  }

  /** Drops the fences that have signalled (WebGL updates them between tasks only),
   * reporting progress. */
  private poll(): void {
    const gl = this.gl;
    let done = 0;
    while (this.fences.length > 0) {
      const status = gl.clientWaitSync(this.fences[0].sync, 0, 0);
      if (status === gl.TIMEOUT_EXPIRED) break;
      if (status === gl.WAIT_FAILED && !this.isLost()) throw new DeviceError(STATUS_INTERNAL, "waiting for the GPU failed");
      gl.deleteSync(this.fences.shift()!.sync);
      done++;
    }
    if (done > 0) this.onProgress?.();
  }

  /** Waits, between tasks, until at most keep fences are pending: the next task at
   * first, then sleeps that double up to 16 ms (hopping from task to task took a core
   * that SwiftShader's own threads needed: 20 small matmuls ran 1.8 times slower). */
  private async drain(keep: number): Promise<void> {
    this.poll();
    for (let round = 0; this.fences.length > keep; round++) {
      if (this.isLost()) {
        this.fences = [];
        throw this.lostOr("");
      }
      await (round < 4 ? nextTask() : sleep(Math.min(16, 2 ** (round - 4))));
      this.poll();
    }
  }

  // -- kernels ----------------------------------------------------------------------

  async compile(kernel: number, source: string): Promise<void> {
    const parts = source.split(/^\/\/!draw /m).slice(1);
    if (parts.length === 0) throw new DeviceError(STATUS_KERNEL, "a WebGL2 kernel needs a //!draw header");
    const draws: Draw[] = [];
    for (const part of parts) {
      const nl = part.indexOf("\n");
      const header = part.slice(0, nl);
      const out = Number(/out=(\d+)/.exec(header)?.[1] ?? "0");
      const points = /prim=points/.test(header);
      const [vertex, fragment] = part.slice(nl + 1).split(/^\/\/!fragment\n/m);
      if (!out || fragment === undefined) {
        throw new DeviceError(STATUS_KERNEL, `a WebGL2 draw needs out=<binding> and a //!fragment part: ${header}`);
      }
      draws.push({ vertex, fragment, ...this.link(out, points, vertex, fragment) });
    }
    this.kernels.set(kernel, draws);
  }

  private link(out: number, points: boolean, vertex: string, fragment: string) {
    const gl = this.gl;
    const shader = (type: number, src: string, what: string): WebGLShader => {
      const s = gl.createShader(type);
      if (!s) throw this.lostOr("createShader failed");
      gl.shaderSource(s, src);
      gl.compileShader(s);
      if (!gl.getShaderParameter(s, gl.COMPILE_STATUS)) {
        if (gl.isContextLost()) throw this.lostOr("");
        const log = gl.getShaderInfoLog(s) ?? "";
        gl.deleteShader(s);
        throw new DeviceError(STATUS_KERNEL, `GLSL ${what} shader did not compile:\n${log}\n${numbered(src)}`);
      }
      return s;
    };
    const vs = shader(gl.VERTEX_SHADER, vertex, "vertex");
    const fs = shader(gl.FRAGMENT_SHADER, fragment, "fragment");
    const program = gl.createProgram();
    if (!program) throw this.lostOr("createProgram failed");
    gl.attachShader(program, vs);
    gl.attachShader(program, fs);
    gl.linkProgram(program);
    gl.deleteShader(vs);
    gl.deleteShader(fs);
    if (!gl.getProgramParameter(program, gl.LINK_STATUS)) {
      if (gl.isContextLost()) throw this.lostOr("");
      throw new DeviceError(STATUS_KERNEL, `GLSL program did not link: ${gl.getProgramInfoLog(program) ?? ""}`);
    }
    const samplers: (WebGLUniformLocation | null)[] = [];
    for (let b = 1; b <= 32; b++) samplers.push(gl.getUniformLocation(program, `B${b}`));
    const draw = {
      program,
      uniforms: gl.getUniformLocation(program, "U"),
      outSize: gl.getUniformLocation(program, "wa_out"),
      layer: gl.getUniformLocation(program, "wa_layer"),
      samplers,
      out,
      points,
    };
    const probe = gl.getUniformLocation(program, "wa_probe");
    if (probe && fragment.length > PROBE_BYTES) this.probe(draw, probe, fragment.length);
    return draw;
  }

  /** Draw a new program once into a 1 x 1 target with wa_probe set, where its shaders
   * write wa_probe and return (kernels/webgl2/program.py), and refuse the program when
   * that word does not come back: the implementation compiled it into something else. */
  private probe(d: Omit<Draw, "vertex" | "fragment">, probe: WebGLUniformLocation, bytes: number): void {
    const gl = this.gl;
    // a 1 x 1 target, and what the samplers (all on unit 0) see: not the target, which
    // would be a feedback loop (scratch textures: made again after a context restore)
    const scratch = (key: string): Texture => {
      let t = this.scratch.get(key);
      if (!t) {
        t = { tex: this.makeTexture(1, 1, 1), fbos: [], words: 1, width: 1, height: 1, layers: 1 };
        this.scratch.set(key, t);
      }
      return t;
    };
    const fbo = this.framebuffer(scratch("probe"), 0);
    const sampled = scratch("probe-sampled").tex;
    gl.useProgram(d.program);
    gl.uniform1ui(probe, PROBE_WORD);
    if (d.outSize) gl.uniform2ui(d.outSize, 1, 1);
    if (d.layer) gl.uniform1ui(d.layer, 0);
    gl.activeTexture(gl.TEXTURE0);
    gl.bindTexture(gl.TEXTURE_2D_ARRAY, sampled);
    gl.bindFramebuffer(gl.DRAW_FRAMEBUFFER, fbo);
    gl.viewport(0, 0, 1, 1);
    gl.clearBufferuiv(gl.COLOR, 0, [0, 0, 0, 0]);
    gl.drawArrays(d.points ? gl.POINTS : gl.TRIANGLES, 0, d.points ? 1 : 6);
    gl.uniform1ui(probe, 0);
    gl.bindFramebuffer(gl.READ_FRAMEBUFFER, fbo);
    const px = new Uint32Array(4);
    gl.readPixels(0, 0, 1, 1, gl.RGBA_INTEGER, gl.UNSIGNED_INT, px);
    gl.bindFramebuffer(gl.READ_FRAMEBUFFER, null);
    this.issued = true;
    if (gl.isContextLost()) throw this.lostOr("");
    if (px[0] !== PROBE_WORD) {
      throw new DeviceError(
        STATUS_KERNEL,
        `this WebGL2 implementation (${gl.getParameter(gl.RENDERER)}) compiled a kernel of ${bytes} ` +
          `bytes of GLSL into a shader that does not run as written (a probe draw gave ` +
          `0x${px[0].toString(16)}, not 0x${PROBE_WORD.toString(16)}): the kernel is too large ` +
          `for it; WebGPU, or smaller expressions, may run it`,
      );
    }
  }

  dispatch(kernel: number, bindings: Uint32Array, uniforms: Uint8Array, gx: number): Promise<void> | void {
    const draws = this.kernels.get(kernel);
    if (!draws) throw new DeviceError(STATUS_INTERNAL, `dispatch of kernel ${kernel}, which was never compiled`);
    if (this.isLost()) return; // reported at the next request
    const gl = this.gl;
    const nwords = Math.ceil(uniforms.length / 4);
    if (nwords > this.uniformWords.length) {
      throw new DeviceError(STATUS_VALIDATION, `${nwords} uniform words; a WebGL2 kernel takes at most ${this.uniformWords.length}`);
    }
    const nvec = Math.max(1, Math.ceil(nwords / 4));
    this.issued = true;
    this.uniformWords.fill(0, 0, nvec * 4);
    new Uint8Array(this.uniformWords.buffer).set(uniforms);
    // Every draw samples the bindings as they were before the dispatch (what a compute
    // kernel's invocations see): a written binding that is also sampled is read from a
    // copy taken first. WebGL forbids sampling a texture that is being rendered anyway.
    const written = new Set(draws.map((d) => bindings[d.out - 1]));
    const copies = new Map<number, WebGLTexture>();
    for (const d of draws) {
      for (let b = 0; b < bindings.length; b++) {
        const h = bindings[b];
        if (d.samplers[b] && written.has(h) && !copies.has(h)) {
          copies.set(h, this.snapshot(this.texture(h), copies.size));
        }
      }
    }
    for (const d of draws) {
      const target = this.texture(bindings[d.out - 1]);
      gl.useProgram(d.program);
      if (d.uniforms) gl.uniform4uiv(d.uniforms, this.uniformWords, 0, nvec * 4);
      if (d.outSize) gl.uniform2ui(d.outSize, target.width, target.height);
      let unit = 0;
      for (let b = 0; b < bindings.length; b++) {
        const loc = d.samplers[b];
        if (!loc) continue;
        gl.activeTexture(gl.TEXTURE0 + unit);
        gl.bindTexture(gl.TEXTURE_2D_ARRAY, copies.get(bindings[b]) ?? this.texture(bindings[b]).tex);
        gl.uniform1i(loc, unit);
        unit++;
      }
      gl.viewport(0, 0, target.width, target.height);
      for (let layer = 0; layer < target.layers; layer++) {
        gl.bindFramebuffer(gl.DRAW_FRAMEBUFFER, this.framebuffer(target, layer));
        if (d.layer) gl.uniform1ui(d.layer, layer);
        if (d.points) this.drawPoints(gx);
        else this.drawRect(target);
      }
    }
    if (this.unfenced >= FENCE_DRAWS || this.unfencedWords >= FENCE_WORDS) this.fence();
    if (this.holdBack && this.fences.length > MAX_PENDING) return this.drain(MAX_PENDING / 2);
  }

  /** One point per invocation, in bands of BAND_WORDS points (gl_VertexID counts on
   * across them), each band a piece of work. */
  private drawPoints(count: number): void {
    const gl = this.gl;
    for (let first = 0; first < count; first += BAND_WORDS) {
      const n = Math.min(BAND_WORDS, count - first);
      gl.drawArrays(gl.POINTS, first, n);
      this.unfenced++;
      this.unfencedWords += n;
      if (count > BAND_WORDS) this.fence();
    }
  }

  /** The output's rows, in bands of BAND_WORDS words (the scissor), each a piece of work. */
  private drawRect(target: Texture): void {
    const gl = this.gl;
    const rows = Math.max(1, Math.floor(BAND_WORDS / target.width));
    if (target.height <= rows) {
      gl.drawArrays(gl.TRIANGLES, 0, 6);
      this.unfenced++;
      this.unfencedWords += target.width * target.height;
      return;
    }
    gl.enable(gl.SCISSOR_TEST);
    for (let y = 0; y < target.height; y += rows) {
      gl.scissor(0, y, target.width, Math.min(rows, target.height - y));
      gl.drawArrays(gl.TRIANGLES, 0, 6);
      this.unfenced++;
      this.fence();
    }
    gl.disable(gl.SCISSOR_TEST);
  }

  /** A copy of t to sample while t itself is rendered. */
  private snapshot(t: Texture, slot: number): WebGLTexture {
    const gl = this.gl;
    const key = `${t.width}x${t.height}x${t.layers}#${slot}`;
    let copy = this.scratch.get(key);
    if (!copy) {
      const tex = this.makeTexture(t.width, t.height, t.layers);
      copy = { tex, fbos: [], words: t.words, width: t.width, height: t.height, layers: t.layers };
      this.scratch.set(key, copy);
    }
    for (let layer = 0; layer < t.layers; layer++) {
      gl.bindFramebuffer(gl.READ_FRAMEBUFFER, this.framebuffer(t, layer));
      gl.bindFramebuffer(gl.DRAW_FRAMEBUFFER, this.framebuffer(copy, layer));
      gl.blitFramebuffer(0, 0, t.width, t.height, 0, 0, t.width, t.height, gl.COLOR_BUFFER_BIT, gl.NEAREST);
    }
    gl.bindFramebuffer(gl.READ_FRAMEBUFFER, null);
    return copy.tex;
  }

  flush(): void {
    // only when something was issued: an empty flush still costs a trip to the GPU process
    if (this.unfenced > 0) this.fence();
    else if (this.unflushed) this.gl.flush();
    this.unflushed = false;
  }

  async sync(): Promise<void> {
    if (this.isLost()) throw this.lostOr("");
    await this.finish();
  }

  async takeError(): Promise<DeviceError | null> {
    if (this.contextLost) return this.lostOr("");
    // getError waits for the GPU process (a round trip): only after commands were issued
    if (this.issued) {
      if (this.isLost()) return this.lostOr("");
      const gl = this.gl;
      const error = gl.getError();
      if (error !== gl.NO_ERROR && error !== gl.CONTEXT_LOST_WEBGL) this.note(this.glError(error, "a command"));
      this.issued = false;
    }
    const e = this.pending;
    this.pending = null;
    return e;
  }

  destroy(): void {
    for (const t of this.textures.values()) this.gl.deleteTexture(t.tex);
    this.textures.clear();
    this.gl.getExtension("WEBGL_lose_context")?.loseContext();
    this.lost ??= "the WebGL2 context was destroyed";
  }

  /** Testing aid: make the browser lose the context now and restore it ms after the
   * loss has been signalled. */
  simulateLoss(ms: number): void {
    const ext = this.gl.getExtension("WEBGL_lose_context");
    if (!ext) throw new DeviceError(STATUS_UNSUPPORTED, "WEBGL_lose_context is not available");
    this.restoreAfter = { ext, ms };
    ext.loseContext();
    this.contextLost = true; // the event comes a task later; the loss is certain now
  }

  private texture(handle: number): Texture {
    const t = this.textures.get(handle);
    if (!t) throw new DeviceError(STATUS_INTERNAL, `buffer handle ${handle} is not allocated`);
    return t;
  }

  private glError(code: number, what: string): DeviceError {
    const gl = this.gl;
    if (code === gl.OUT_OF_MEMORY) return new DeviceError(STATUS_OUT_OF_MEMORY, `WebGL2 ran out of memory in ${what}`);
    return new DeviceError(STATUS_VALIDATION, `WebGL2 error 0x${code.toString(16)} in ${what}`);
  }

  private note(e: DeviceError): void {
    if (!this.pending || (e.status === STATUS_OUT_OF_MEMORY && this.pending.status !== STATUS_OUT_OF_MEMORY)) {
      this.pending = e;
    }
  }
}
