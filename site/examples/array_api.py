# Generic Array API code: it asks its inputs for their namespace, so the same function
# runs on NumPy, CuPy, PyTorch... and on webarray in the browser.
import webarray as xp


def standardize(x):
    ns = x.__array_namespace__()
    mean = ns.mean(x, axis=0)
    std = ns.std(x, axis=0)
    return (x - mean) / ns.where(std == 0, ns.ones_like(std), std)


data = xp.reshape(xp.arange(12, dtype=xp.float32), (4, 3)) ** 1.5
z = standardize(data)
print(z)
print("column means ~ 0:", xp.mean(z, axis=0))
print("column stds  ~ 1:", xp.std(z, axis=0))

mask = z > 0
print("positive entries:", int(xp.count_nonzero(mask)), "->", z[mask])
print("unique of rounded:", xp.unique_values(xp.round(z)))
