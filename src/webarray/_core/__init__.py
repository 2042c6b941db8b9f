"""The core layer: records, the lazy graph, launches, devices and multi-launch algorithms.

Below the namespace (which checks arguments, promotes and computes shapes) and above the
kernels (generators of shader source from specs) and executors (which run them):

- ``storage``: how each dtype's values sit in 32-bit words;
- ``tensor``: the storage record every array is, and stride math;
- ``launch``: binding records to kernels, aliasing copies, vec4, grids, pieces;
- ``graph``: the lazy elementwise graph (fusion) over ``launch``;
- ``device``: executor + buffer pool + kernel cache; dispatch only;
- ``algorithms/``: reduce and scan, sort, matmul as programs of several launches.

Imports point down only: nothing here imports the namespace or the CuPy layer.
"""
