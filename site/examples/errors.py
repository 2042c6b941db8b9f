# Errors are part of the interface: each says what was given and what is allowed.
import webarray as xp

try:
    xp.ones(3) + xp.ones(4)
except ValueError as e:
    print("ValueError:", e)

print("float64 supported here:", "float64" in xp.__array_namespace_info__().dtypes())

# An uncaught exception ends the script; its traceback appears below in red.
xp.sin(xp.arange(3))
