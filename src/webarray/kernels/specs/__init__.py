"""What the kernels of each family depend on, and their uniform words and launch
geometry: shared by the WGSL generators (``kernels/webgpu``), the GLSL ones
(``kernels/webgl2``) and the launch sites of the namespace, so that neither backend
package imports the other and the namespace imports no backend by name."""
