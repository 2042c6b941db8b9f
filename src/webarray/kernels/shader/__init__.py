"""The one shader front end: every piece of kernel code, whoever writes it, goes through it.

- ``types.py``: registers, vectors and arrays, literal types, C's conversions;
- ``syntax.py``: one tokenizer and one parser for our WGSL subset, GLSL declarations and
  CuPy's C-like kernel bodies, into one small tree;
- ``emit.py``: the checker and the two emitters (WGSL, GLSL ES 3.00), with the call tables
  of the two dialects (C's math names as the op table's helpers; WGSL's builtins);
- ``translate.py``: WGSL-subset functions and expressions written as GLSL, for the WebGL2
  registry.

The CuPy layer (``cupy/_kernel_lang.py``) builds user kernels on it; the op table, the
helper library and the WebGL2 generators are written in its WGSL subset.
"""
